# SPDX-License-Identifier: GPL-2.0
# test-mmap-answers checks through the mapping with the module's filter
# core (the code libkbloom runs on a mapping) and through libkbloom's
# kbl_map(), so it links both (see tests/vm/Makefile).  libkbloom.a
# carries the core's objects too; the linker takes none of them, as the
# sources compiled in here already define every symbol they would bring.
test-mmap-answers_SRCS := $(KBLOOM_CORE)
test-mmap-answers_LDLIBS := $(LIBKBLOOM) -lxxhash -lm
