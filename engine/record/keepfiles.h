/* The round's "files": configuration the result depends on (an
 * nginx.conf, a data set's manifest), kept with the round's evidence.
 *
 * Each is read once: its sha256 goes into environment.json ("files") and,
 * up to SPEC_FILE_COPY_MAX, the very bytes hashed are copied into
 * DIR/files/NAME before the first leg, through rfile (no symlink is
 * followed), so the seal covers what was run.  A larger one is hashed,
 * not copied. */
#ifndef BENCHTUI_KEEPFILES_H
#define BENCHTUI_KEEPFILES_H

#include <jansson.h>
#include <stddef.h>

#include "spec.h"

/* Hash and copy every file of s into dir/files/ (made here).  The object
 * environment.json records, {NAME: {"path", "sha256", "bytes",
 * "copied"}}, or NULL with err naming the file. */
json_t *keepfiles_keep(const struct spec *s, const char *dir, char *err,
    size_t errlen);

/* Take back what keepfiles_keep made (a round that could not start). */
void keepfiles_unmake(const struct spec *s, const char *dir);

/* Each file of s hashed again and held against ref (the object
 * keepfiles_keep made, as environment.json records it): one entry
 * {"file": NAME, "path", "was": SHA256, "now": SHA256|null, "error"}
 * appended to changed for every file whose content is not the one kept
 * (or that cannot be read now).  How many. */
size_t keepfiles_verify(const struct spec *s, const json_t *ref,
    json_t *changed);

/* ref's sha256 set to each changed entry's "now": the content accepted
 * (--accept-changed-files) is the one the seal then checks against. */
void keepfiles_ref_update(json_t *ref, const json_t *changed);

/* "files: NAME (PATH) changed since the round kept it: sha256 A then, B
 * now" for each entry of changed, "; "-joined into buf. */
void keepfiles_describe(const json_t *changed, char *buf, size_t len);

#endif
