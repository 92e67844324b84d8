// SPDX-License-Identifier: GPL-3.0-or-later
// Must NOT compile: the runtime passes only core on, so whoever links just the runtime (brokerd,
// the UI) cannot see the engine. The layering_enforced test builds this and expects the failure.
#include "engine/messagebroker.h"
