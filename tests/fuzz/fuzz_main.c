/* libFuzzer entry point: compiled once per target with
 * -DKCBP_FUZZ_TARGET=kcbp_fuzz_<name> (see the Makefile's fuzz rules). */
#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return KCBP_FUZZ_TARGET(data, size); }
