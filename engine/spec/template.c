/* template: ${NAME} expansion.
 *
 * Syntax: "${NAME}" with NAME matching [A-Za-z_][A-Za-z0-9_]*; "$$" is a
 * literal "$"; a "$" followed by anything else is kept as it is, because
 * arguments such as awk's "$1" or a regex's "a$" must pass through a shell-free
 * argv untouched.  An unterminated "${" is an error.
 *
 * A variable's value may use other variables.  The chain of names being
 * expanded is kept, so a cycle is reported by name ("A -> B -> A") rather
 * than by overflowing a depth counter; the depth limit stays as a backstop. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "template.h"
#include "xalloc.h"

#define TEMPLATE_DEPTH_MAX 16
/* Bounds on one expansion (template.h): nested variables multiply, so a
 * few hundred bytes of round file can ask for gigabytes.  Both are checked
 * as the expansion grows, so a refusal costs milliseconds. */
#define TEMPLATE_REFS_MAX (1u << 20)

struct walk {
	const struct template_ctx *ctx;
	bool check;          /* built-ins are defined, values unknown */
	const char *stack[TEMPLATE_DEPTH_MAX];
	int depth;
	size_t refs;         /* variables expanded so far */
	char *err;
	size_t errlen;
};

static void
template_walk_error(struct walk *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, w->errlen, fmt, ap);
	va_end(ap);
}

/* "${A} -> ${B}": the variables being expanded, outermost first. */
static const char *
template_walk_chain(const struct walk *w, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < w->depth && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s${%s}",
		    i ? " -> " : "", w->stack[i]);
	return buf;
}

/* xbuf_add within TEMPLATE_ARG_MAX, naming the variables that overflow it. */
static int
template_walk_add(struct walk *w, struct xbuf *out, const char *s, size_t n)
{
	if (out->len + n > TEMPLATE_ARG_MAX) {
		char chain[256];

		template_walk_error(w, "%s expands past %u bytes (a variable used more "
		    "than once multiplies its value); refusing",
		    w->depth ? template_walk_chain(w, chain, sizeof chain) :
		    "the string", TEMPLATE_ARG_MAX);
		return -1;
	}
	xbuf_add(out, s, n);
	return 0;
}

bool
template_name_valid(const char *name, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];
		bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    c == '_';

		if (!alpha && (i == 0 || c < '0' || c > '9'))
			return false;
	}
	return true;
}

bool
template_is_builtin(const char *name)
{
	static const char *const builtins[] = {
		"BIN", "SCRATCH", "CELL", "ARM", "REP", "ROUND_DIR",
		"BENCHTUI", "METRICS", "SERVER_BIN",
	};

	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		if (strcmp(name, builtins[i]) == 0)
			return true;
	return false;
}

const char *
template_self_path(void)
{
	static char self[4096];
	ssize_t n;

	if (self[0] != '\0')
		return self;
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0 || (size_t)n >= sizeof self - 1) {
		self[0] = '\0';
		return NULL;
	}
	self[n] = '\0';
	return self;
}

static const struct spec_kv *
template_kv_find(const struct spec_kv *kv, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(kv[i].key, name) == 0)
			return &kv[i];
	return NULL;
}

/* The variable name is bound to in ctx (cell, arm, round), or NULL. */
static const struct spec_kv *
template_ctx_find(const struct template_ctx *c, const char *name)
{
	const struct spec_kv *kv = NULL;

	if (c->cell != NULL)
		kv = template_kv_find(c->cell->vars, c->cell->nvars, name);
	if (kv == NULL && c->arm_vars != NULL)
		kv = template_kv_find(c->arm_vars, c->narm_vars, name);
	if (kv == NULL && c->spec != NULL)
		kv = template_kv_find(c->spec->vars, c->spec->nvars, name);
	return kv;
}

static int template_walk_string(struct walk *w, const char *s, struct xbuf *out);

/* Append the value of name; 1 when name is a built-in that has no value in
 * this context (reported by the caller), -1 on error. */
static int
template_walk_builtin(struct walk *w, const char *name, struct xbuf *out)
{
	const struct template_ctx *c = w->ctx;
	const char *v = NULL;
	char rep[16];

	if (strcmp(name, "BIN") == 0)
		v = c->bin;
	else if (strcmp(name, "SCRATCH") == 0)
		v = c->scratch;
	else if (strcmp(name, "CELL") == 0)
		v = c->cell ? c->cell->name : NULL;
	else if (strcmp(name, "ARM") == 0)
		v = c->arm;
	else if (strcmp(name, "REP") == 0) {
		if (c->rep > 0 || c->warmup) {
			snprintf(rep, sizeof rep, "%d", c->rep);
			v = rep;
		}
	} else if (strcmp(name, "ROUND_DIR") == 0)
		v = c->round_dir;
	else if (strcmp(name, "BENCHTUI") == 0)
		v = template_self_path();
	else if (strcmp(name, "METRICS") == 0)
		v = c->metrics;
	else if (strcmp(name, "SERVER_BIN") == 0)
		v = c->server_bin;
	if (v == NULL) {
		static const struct {
			const char *name, *why;
		} whys[] = {
			{ "BIN", "neither the arm nor the round sets bin" },
			{ "SCRATCH", "the round sets no scratch" },
			{ "ARM", "a cell's server serves every arm" },
			{ "REP", "a cell's server serves every rep" },
			{ "CELL", "this is outside any cell" },
			{ "ROUND_DIR", "no round folder is known" },
			{ "BENCHTUI", "/proc/self/exe cannot be read" },
			{ "METRICS", "only a leg has a metrics file" },
			{ "SERVER_BIN", "the arm sets no server_bin" },
		};
		const char *why = "";

		if (w->check)
			return 0;
		for (size_t i = 0; i < sizeof whys / sizeof whys[0]; i++)
			if (strcmp(whys[i].name, name) == 0)
				why = whys[i].why;
		/* The round has one, but not for whatever outlives a leg. */
		if (strcmp(name, "SCRATCH") == 0 && c->spec != NULL &&
		    c->spec->scratch != NULL)
			why = "the scratch folder is a leg's, emptied before "
			    "each leg, and a cell's server outlives its legs";
		template_walk_error(w, "${%s} has no value here: %s", name, why);
		return -1;
	}
	return template_walk_add(w, out, v, strlen(v));
}

static int
template_walk_var(struct walk *w, const char *name, struct xbuf *out)
{
	const struct spec_kv *kv = template_ctx_find(w->ctx, name);
	const char *v;
	int rc;

	if (kv == NULL) {
		if (template_is_builtin(name))
			return template_walk_builtin(w, name, out);
		template_walk_error(w, "unknown variable ${%s}", name);
		return -1;
	}
	if (kv->list != NULL) {
		template_walk_error(w, "${%s} is an array; an array only splices into an "
		    "argv, as an element that is exactly \"${%s}\"", name, name);
		return -1;
	}
	v = kv->val;

	for (int i = 0; i < w->depth; i++) {
		if (strcmp(w->stack[i], name) == 0) {
			char chain[512];
			size_t n = 0;

			chain[0] = '\0';
			for (int j = i; j < w->depth && n < sizeof chain; j++)
				n += (size_t)snprintf(chain + n, sizeof chain - n,
				    "%s -> ", w->stack[j]);
			template_walk_error(w, "variable cycle: %s%s", chain, name);
			return -1;
		}
	}
	if (w->depth == TEMPLATE_DEPTH_MAX) {
		template_walk_error(w, "variables nested deeper than %d at ${%s}",
		    TEMPLATE_DEPTH_MAX, name);
		return -1;
	}
	w->stack[w->depth++] = name;
	if (++w->refs > TEMPLATE_REFS_MAX) {
		char chain[256];

		template_walk_error(w, "%s: expanding it takes more than %u variable "
		    "references (a variable used more than once multiplies "
		    "them); refusing", template_walk_chain(w, chain, sizeof chain),
		    TEMPLATE_REFS_MAX);
		w->depth--;
		return -1;
	}
	rc = template_walk_string(w, v, out);
	w->depth--;
	return rc;
}

static int
template_walk_string(struct walk *w, const char *s, struct xbuf *out)
{
	const char *p = s;

	while (*p != '\0') {
		const char *dollar = strchr(p, '$');
		const char *end;
		char name[128];
		size_t n;

		if (dollar == NULL)
			return template_walk_add(w, out, p, strlen(p));
		if (template_walk_add(w, out, p, (size_t)(dollar - p)) < 0)
			return -1;
		if (dollar[1] == '$') {
			if (template_walk_add(w, out, "$", 1) < 0)
				return -1;
			p = dollar + 2;
			continue;
		}
		if (dollar[1] != '{') {
			if (template_walk_add(w, out, "$", 1) < 0)
				return -1;
			p = dollar + 1;
			continue;
		}
		end = strchr(dollar + 2, '}');
		if (end == NULL) {
			template_walk_error(w, "unterminated \"${\" in \"%s\"", s);
			return -1;
		}
		n = (size_t)(end - (dollar + 2));
		if (!template_name_valid(dollar + 2, n) || n >= sizeof name) {
			template_walk_error(w, "bad variable name \"%.*s\" in \"%s\" "
			    "(names match [A-Za-z_][A-Za-z0-9_]*)",
			    (int)(end - dollar + 1), dollar, s);
			return -1;
		}
		memcpy(name, dollar + 2, n);
		name[n] = '\0';
		if (template_walk_var(w, name, out) < 0)
			return -1;
		p = end + 1;
	}
	return 0;
}

char *
template_expand(const char *s, const struct template_ctx *ctx, char *err,
    size_t errlen)
{
	struct walk w = { .ctx = ctx, .err = err, .errlen = errlen };
	struct xbuf out = { 0 };

	/* err is left alone on success: callers may pass a buffer that
	 * already holds something. */
	xbuf_add(&out, "", 0);
	if (template_walk_string(&w, s, &out) < 0) {
		free(out.p);
		return NULL;
	}
	return out.p;
}

int
template_check(const char *s, const struct spec *spec,
    const struct spec_cell *cell, char *err, size_t errlen)
{
	struct template_ctx ctx = { .spec = spec, .cell = cell };
	struct walk w = { .ctx = &ctx, .check = true, .err = err,
	    .errlen = errlen };
	struct xbuf out = { 0 };
	int rc;

	rc = template_walk_string(&w, s, &out);
	free(out.p);
	return rc < 0 ? -1 : 0;
}

void
template_free_argv(char **v)
{
	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* The array variable element names when it is exactly "${NAME}", or
 * NULL. */
static const struct spec_kv *
template_splice_var(const char *element, const struct template_ctx *ctx)
{
	size_t n = strlen(element);
	char name[128];
	const struct spec_kv *kv;

	if (n < 4 || n - 3 >= sizeof name || element[0] != '$' ||
	    element[1] != '{' || element[n - 1] != '}' ||
	    !template_name_valid(element + 2, n - 3))
		return NULL;
	memcpy(name, element + 2, n - 3);
	name[n - 3] = '\0';
	kv = template_ctx_find(ctx, name);
	return kv != NULL && kv->list != NULL ? kv : NULL;
}

int
template_expand_argv(char *const *tmpl, size_t n,
    const struct template_ctx *ctx, char ***out, size_t *nout, size_t *at,
    char *err, size_t errlen)
{
	size_t cap = n + 1, k = 0;
	char **v = xcalloc(cap, sizeof *v);

	*out = NULL;
	*nout = 0;
	for (size_t i = 0; i < n; i++) {
		const struct spec_kv *kv = template_splice_var(tmpl[i], ctx);
		size_t add = kv != NULL ? kv->nlist : 1;

		*at = i;
		if (k + add + 1 > cap) {
			cap = k + add + 1 + n;
			v = xreallocarray(v, cap, sizeof *v);
		}
		for (size_t j = 0; j < add; j++) {
			const char *src = kv != NULL ? kv->list[j] : tmpl[i];

			v[k] = template_expand(src, ctx, err, errlen);
			if (v[k] == NULL) {
				template_free_argv(v);
				return -1;
			}
			v[++k] = NULL;
		}
		v[k] = NULL;
	}
	*out = v;
	*nout = k;
	return 0;
}
