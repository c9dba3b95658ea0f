/* The libFuzzer entry point every target defines.  standalone.c calls it
 * over files for the regression runs; libFuzzer calls it under -Dfuzz=true. */
#ifndef BENCHTUI_FUZZ_H
#define BENCHTUI_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
