/* A private folder for the targets whose parser reads a round folder
 * rather than bytes (resume, verify): made once per process under /tmp and
 * emptied and removed at exit. */
#ifndef BENCHTUI_FUZZ_DIR_H
#define BENCHTUI_FUZZ_DIR_H

#include <stddef.h>

/* The folder's path; aborts when it cannot be made. */
const char *fuzz_dir(void);

/* Write len bytes to fuzz_dir()/name, replacing it; aborts on error. */
void fuzz_dir_put(const char *name, const void *data, size_t len);

#endif
