// SPDX-License-Identifier: GPL-3.0-or-later
// The owner of a precompiled header needs a source file; this one adds nothing (see
// cmake/BrokerPrecompiled.cmake).
