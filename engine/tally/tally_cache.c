/* Tally: the report kept from call to call (tally.h's tally_report_cached
 * and tally_report_advance), and the report built whole (tally_report).
 *
 * The report is made of pieces (tally_piece.h): per cell, each A/A arm's
 * comparison with its original (the floor and the biased metrics) and each
 * arm's part.  Each piece notes the versions of the arms it read; a piece
 * whose arms have not changed since is used again as it is (its json by
 * reference), and a cell none of whose pieces changed keeps its object;
 * a cell that saw nothing since a pass went through it is not looked at.
 * A leg therefore costs the pieces of its own cell that read its arm: its
 * own, those compared with it, and the A/A state when it is an A/A arm or
 * an original.  A change of shape (tally_int.h's gen) drops everything.
 *
 * The work is done in passes, a pass in slices: a slice builds pieces
 * until a deadline and returns, so a caller with a screen to keep alive
 * (the console) never waits for a whole report.  A pass takes the pieces
 * stale when it began, and a piece built during the pass counts as done
 * for it even if its arms see another leg before the pass ends (the next
 * pass takes that in): legs arriving faster than a report is built do not
 * keep the report from ever being finished.  Which pass built a piece is
 * told by the pass's serial number, never by the clock: a piece built
 * late in one pass may rest on an A/A state the pass took as it was, so
 * the next pass checks it like any other. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "tally_int.h"
#include "tally_piece.h"
#include "xalloc.h"

/* The cached state of one cell. */
struct tally_ccell {
	size_t narms;
	struct tally_aa *aa;          /* [arm] */
	struct tally_piece *pieces;   /* [arm] */
	double *floor;                /* [metric] */
	bool *bias;                   /* [metric] */
	bool *shown;                  /* [metric]: its rows */
	uint64_t state_ver;           /* moves whenever bias or shown do */
	uint64_t cver;                /* the cell's ver when json was made */
	uint64_t pass;                /* the serial of the pass it was last
	                               * done for (its pieces may be of legs
	                               * before) */
	uint64_t seen;                /* the clock when the last pass that
	                               * went through it began */
	bool dirty;                   /* a piece was built since */
	json_t *json;                 /* the cell's object, or NULL */
	struct tally_cache_counts n;
};

struct tally_cache {
	enum tally_lists lists;
	uint64_t gen;                 /* the tally's gen the cells are of */
	size_t ncells, nm;
	struct tally_ccell *cells;
	struct kmemo km;
	bool in_pass;
	uint64_t pass;                /* the tally's clock when it began */
	uint64_t serial;              /* the pass's number */
	json_t *report;               /* the last whole report, or NULL */
	uint64_t report_pass;         /* the clock when its pass began: it
	                               * is up to date while the clock is */
};

static void
tally_ccell_free(struct tally_ccell *cc)
{
	for (size_t i = 0; i < cc->narms; i++) {
		free(cc->aa[i].spread);
		free(cc->aa[i].est);
		json_decref(cc->pieces[i].arm);
		tally_warns_clear(&cc->pieces[i].w);
	}
	free(cc->aa);
	free(cc->pieces);
	free(cc->floor);
	free(cc->bias);
	free(cc->shown);
	json_decref(cc->json);
	memset(cc, 0, sizeof *cc);
}

static void
tally_cache_cells_free(struct tally_cache *k)
{
	for (size_t i = 0; i < k->ncells; i++)
		tally_ccell_free(&k->cells[i]);
	free(k->cells);
	k->cells = NULL;
	k->ncells = 0;
}

/* Room for the tally's cells as they are now, nothing built. */
static void
tally_cache_shape(struct tally_cache *k, const struct tally *t)
{
	size_t nm = t->nmetrics;

	tally_cache_cells_free(k);
	k->gen = t->gen;
	k->nm = nm;
	k->ncells = t->ncells;
	k->cells = xcalloc(t->ncells + 1, sizeof *k->cells);
	for (size_t i = 0; i < t->ncells; i++) {
		struct tally_ccell *cc = &k->cells[i];
		size_t na = t->cells[i].narms;

		cc->narms = na;
		cc->aa = xcalloc(na + 1, sizeof *cc->aa);
		cc->pieces = xcalloc(na + 1, sizeof *cc->pieces);
		for (size_t j = 0; j < na; j++) {
			cc->aa[j].spread = xreallocarray(NULL, nm + 1,
			    sizeof *cc->aa[j].spread);
			cc->aa[j].est = xreallocarray(NULL, nm + 1,
			    sizeof *cc->aa[j].est);
		}
		cc->floor = xreallocarray(NULL, nm + 1, sizeof *cc->floor);
		cc->bias = xcalloc(nm + 1, sizeof *cc->bias);
		cc->shown = xcalloc(nm + 1, sizeof *cc->shown);
		for (size_t m = 0; m < nm; m++)
			cc->floor[m] = NAN;
	}
	if (k->km.level != t->level)
		k->km = (struct kmemo){ .level = t->level };
}

/* A pass begins: it takes in what was fed until now. */
static void
tally_cache_begin(struct tally_cache *k, const struct tally *t)
{
	k->in_pass = true;
	k->pass = t->clock;
	k->serial++;
}

/* Whether a piece built in pass serial counts for this one. */
static bool
tally_cache_this_pass(const struct tally_cache *k, bool valid, uint64_t serial)
{
	return valid && serial == k->serial;
}

/* Whether an A/A state still holds: its arms saw no leg since, or one
 * of them did, only at reps the other has no counted leg at (the pairs
 * are the same; with both changed, that cannot be told).  Noted, so the
 * question is not asked again. */
static bool
tally_cache_aa_ok(const struct tally_cache *k, size_t reps,
    struct tally_aa *aa, const struct tarm *a, const struct tarm *b)
{
	bool same_a, same_b;

	if (tally_cache_this_pass(k, aa->valid, aa->pass))
		return true;
	if (!aa->valid)
		return false;
	same_a = aa->ver_a == a->ver;
	same_b = aa->ver_b == b->ver;
	if (!(same_a && same_b) && !(same_a && tally_changes_unpaired(b,
	    aa->ver_b, a, reps)) && !(same_b && tally_changes_unpaired(a,
	    aa->ver_a, b, reps)))
		return false;
	aa->ver_a = a->ver;
	aa->ver_b = b->ver;
	return true;
}

/* Whether arm i's piece still holds: the arm and the cell's bias and
 * stop as they were, and its comparison arm b unchanged or changed only
 * at reps arm i has no counted leg at. */
static bool
tally_cache_piece_ok(const struct tally_cache *k, struct tally_ccell *cc,
    const struct tcell *c, size_t i, const struct tarm *b, size_t reps)
{
	struct tally_piece *p = &cc->pieces[i];

	if (tally_cache_this_pass(k, p->valid, p->pass))
		return true;
	if (!p->valid || p->ver_a != c->arms[i].ver ||
	    p->state_ver != cc->state_ver || p->stopped_rep != c->stopped_rep)
		return false;
	if (b == NULL || p->ver_b == b->ver)
		return p->ver_b == (b != NULL ? b->ver : 0);
	if (!tally_changes_unpaired(b, p->ver_b, &c->arms[i], reps))
		return false;
	p->ver_b = b->ver;
	return true;
}

/* Whether a slice stops before the next piece: never before its first;
 * past the deadline.  A piece that needs a new k (at n = 2000 the one
 * long step) has it made alone, first in a slice, so a slice is never a
 * k and a slice's worth of pieces on top. */
static bool
tally_cache_yield(struct tally_cellwork *cw, double deadline, bool *worked,
    size_t i, const struct tarm *b)
{
	if (deadline <= 0)
		return false;
	if (*worked && clock_now() >= deadline)
		return true;
	if (!tally_piece_k(cw, i, b, false))
		return false;
	if (*worked)
		return true;
	(void)tally_piece_k(cw, i, b, true);
	*worked = true;
	return clock_now() >= deadline;
}

/* The cell's rows (cw->shown, made by tally_cellwork_init), and its
 * floor and biased metrics from its A/A states: a change of rows or bias
 * makes every piece of the cell stale (their metrics, their "suspect"). */
static void
tally_cache_floor(struct tally_cellwork *cw, struct tally_ccell *cc,
    size_t nm)
{
	double *floor = xreallocarray(NULL, nm + 1, sizeof *floor);
	bool *bias = xcalloc(nm + 1, sizeof *bias);

	tally_cell_floor(cw, floor, bias);
	for (size_t m = 0; m < nm; m++) {
		if (bias[m] != cc->bias[m] || cw->shown[m] != cc->shown[m]) {
			cc->bias[m] = bias[m];
			cc->shown[m] = cw->shown[m];
			cc->state_ver++;
			cc->dirty = true;
		}
		if (isnan(floor[m]) != isnan(cc->floor[m]) ||
		    (!isnan(floor[m]) && floor[m] != cc->floor[m])) {
			cc->floor[m] = floor[m];
			cc->dirty = true;
		}
	}
	free(floor);
	free(bias);
}

/* The A/A states of the cell that are stale; false when the slice ends
 * first. */
static bool
tally_cache_aa(struct tally_cache *k, struct tally_ccell *cc,
    struct tally_cellwork *cw, double deadline, bool *worked)
{
	const struct tcell *c = cw->c;

	for (size_t i = 0; i < c->narms; i++) {
		struct tally_aa *aa = &cc->aa[i];
		if (cw->aa_vs[i] == NULL || tally_cache_aa_ok(k, cw->reps, aa,
		    &c->arms[i], cw->aa_vs[i]))
			continue;
		if (tally_cache_yield(cw, deadline, worked, i, cw->aa_vs[i]))
			return false;
		tally_aa_build(cw, i, aa);
		aa->valid = true;
		aa->pass = k->serial;
		cc->dirty = *worked = true;
		cc->n.aa++;
	}
	return true;
}

/* The arms' pieces of the cell that are stale; false when the slice ends
 * first. */
static bool
tally_cache_pieces(const struct tally *t, struct tally_cache *k,
    struct tally_ccell *cc, struct tally_cellwork *cw, double deadline,
    bool *worked)
{
	const struct tcell *c = cw->c;

	for (size_t i = 0; i < c->narms; i++) {
		struct tally_piece *p = &cc->pieces[i];
		const struct tarm *b = tally_find_arm(c, tally_vs(t, c,
		    c->arms[i].name, NULL));
		if (tally_cache_piece_ok(k, cc, c, i, b, cw->reps))
			continue;
		if (tally_cache_yield(cw, deadline, worked, i, b))
			return false;
		tally_piece_build(cw, i, p);
		p->state_ver = cc->state_ver;
		p->pass = k->serial;
		cc->dirty = *worked = true;
		cc->n.pieces++;
	}
	return true;
}

/* Whether cell c saw nothing since the clock seen: no leg line of any of
 * its arms (ver), no look, stop or aborted leg (the cell's ver).  Every
 * other input of its pieces, floor and object moves gen. */
static bool
tally_cache_unchanged(const struct tcell *c, uint64_t seen)
{
	if (c->ver > seen)
		return false;
	for (size_t i = 0; i < c->narms; i++)
		if (c->arms[i].ver > seen)
			return false;
	return true;
}

/* Bring cell i up to date for the pass; false when the slice ends first.
 * A cell a pass went through whole, that saw nothing since that pass
 * began, is as that pass left it: going through it again would build
 * nothing (each piece's and A/A state's versions are its arms' still,
 * its floor and rows the same), so it is not looked at. */
static bool
tally_cache_cell(const struct tally *t, struct tally_cache *k, size_t i,
    double deadline, bool *worked)
{
	const struct tcell *c = &t->cells[i];
	struct tally_ccell *cc = &k->cells[i];
	struct tally_cellwork cw = { .km = &k->km, .lists = k->lists,
	    .bias = cc->bias, .aa = cc->aa };
	bool done;

	if (c->narms == 0)
		return true;
	if (cc->json != NULL && !cc->dirty && (cc->pass == k->serial ||
	    tally_cache_unchanged(c, cc->seen))) {
		cc->pass = k->serial;
		return true;
	}
	tally_cellwork_init(&cw, t, c);
	done = tally_cache_aa(k, cc, &cw, deadline, worked);
	if (done) {
		tally_cache_floor(&cw, cc, k->nm);
		done = tally_cache_pieces(t, k, cc, &cw, deadline, worked);
	}
	if (done && (cc->dirty || cc->json == NULL || cc->cver != c->ver)) {
		json_decref(cc->json);
		cc->json = tally_cell_json(t, c, cc->pieces, cc->floor,
		    cc->bias, cc->shown);
		cc->cver = c->ver;
		cc->dirty = false;
		cc->n.cells++;
	}
	if (done) {
		cc->pass = k->serial;
		cc->seen = k->pass;
	}
	tally_cellwork_finish(&cw);
	return done;
}

/* The report from the cells' objects and pieces. */
static json_t *
tally_cache_report(const struct tally *t, const struct tally_cache *k)
{
	json_t **cells = xcalloc(t->ncells + 1, sizeof *cells);
	struct tally_piece **pieces = xcalloc(t->ncells + 1, sizeof *pieces);
	json_t *rep;

	for (size_t i = 0; i < t->ncells; i++) {
		cells[i] = t->cells[i].narms ? k->cells[i].json : NULL;
		pieces[i] = k->cells[i].pieces;
	}
	rep = tally_report_json(t, cells, pieces);
	free(cells);
	free(pieces);
	return rep;
}

/* One slice of the pass (deadline <= 0: the whole of it); true when the
 * pass is done and k->report is its report. */
static bool
tally_cache_step(const struct tally *t, struct tally_cache *k, double deadline)
{
	bool worked = false;

	if (k->cells == NULL || k->gen != t->gen) {
		tally_cache_shape(k, t);
		tally_cache_begin(k, t);
	}
	for (size_t i = 0; i < t->ncells; i++)
		if (!tally_cache_cell(t, k, i, deadline, &worked))
			return false;
	json_decref(k->report);
	k->report = tally_cache_report(t, k);
	k->report_pass = k->pass;
	k->in_pass = false;
	return true;
}

static struct tally_cache *
tally_cache_of(struct tally *t)
{
	if (t->cache == NULL)
		t->cache = xcalloc(1, sizeof *t->cache);
	return t->cache;
}

bool
tally_report_stale(const struct tally *t)
{
	const struct tally_cache *k = t->cache;

	return k == NULL || k->report == NULL || k->report_pass != t->clock;
}

json_t *
tally_report_cached(struct tally *t)
{
	struct tally_cache *k = tally_cache_of(t);

	if (tally_report_stale(t)) {
		/* Up to date: a pass begun now, whatever one was under way. */
		tally_cache_begin(k, t);
		(void)tally_cache_step(t, k, 0);
	}
	return json_incref(k->report);
}

json_t *
tally_report_advance(struct tally *t, double deadline)
{
	struct tally_cache *k = tally_cache_of(t);

	if (!tally_report_stale(t))
		return json_incref(k->report);
	if (!k->in_pass)
		tally_cache_begin(k, t);
	if (!tally_cache_step(t, k, deadline > 0 ? deadline : 1e-9))
		return NULL;
	return json_incref(k->report);
}

json_t *
tally_report_lists(const struct tally *t, enum tally_lists lists)
{
	struct tally_cache k = { .lists = lists };
	json_t *rep;

	/* The same pieces as the cache's, built once and let go. */
	(void)tally_cache_step(t, &k, 0);
	rep = k.report;
	tally_cache_cells_free(&k);
	return rep;
}

void
tally_cache_counts(const struct tally *t, size_t cell,
    struct tally_cache_counts *out)
{
	const struct tally_cache *k = t->cache;

	memset(out, 0, sizeof *out);
	if (k != NULL && cell < k->ncells)
		*out = k->cells[cell].n;
}

void
tally_cache_destroy(struct tally_cache *k)
{
	if (k == NULL)
		return;
	tally_cache_cells_free(k);
	json_decref(k->report);
	free(k);
}
