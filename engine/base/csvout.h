/* csv fields as report and the profiles print them (RFC 4180). */
#ifndef BENCHTUI_CSVOUT_H
#define BENCHTUI_CSVOUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* A text field (after a comma when comma), quoted when it needs to be;
 * nothing for NULL. */
void csvout_str(FILE *out, const char *s, bool comma);

/* ",NUMBER": %lld for an integer, %.17g (it reads back exactly) for a
 * real; "," alone for anything else (null). */
void csvout_num(FILE *out, const json_t *x);

#endif
