/* SPDX-License-Identifier: GPL-2.0 */
/* <kunit/resource.h>: on the host, part of the one shim header. */
#include "test.h"
