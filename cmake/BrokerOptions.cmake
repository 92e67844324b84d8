# SPDX-License-Identifier: GPL-3.0-or-later
# Build options and the compiler settings every BrokerDesk target shares.

set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
set(CMAKE_AUTOMOC ON)
set(CMAKE_AUTORCC ON)

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
    set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()

option(BROKER_WERROR "Treat compiler warnings as errors (CI turns this on)" OFF)
option(BROKER_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(BROKER_BUILD_UI "Build the desktop app (brokerdesk) and its widgets; OFF: brokerd and brokerctl need no Qt Widgets" ON)
option(BROKER_BUILD_BENCHMARKS "Build the benchmark programs under bench/" ON)
# Each room's files compiled a few at a time as one unit: our headers (not in the precompiled
# set) are parsed once per batch instead of once per file. For builds from scratch (the test
# script turns it on); an edit recompiles its whole batch, so it is off for day-to-day work.
option(BROKER_UNITY_BUILD "Compile the rooms' sources in batches (faster builds from scratch)" OFF)
include(GNUInstallDirs)
include(CTest) # provides BUILD_TESTING (ON by default)

# Applied per target (never globally) so that third-party headers keep their own settings.
function(broker_set_warnings target)
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
        -Wcast-align -Woverloaded-virtual)
    if(BROKER_WERROR)
        target_compile_options(${target} PRIVATE -Werror)
    endif()
endfunction()

# Test programs compile at -Og in optimized builds: what they test is the rooms' code, compiled
# as the build says; their own code (data tables, lambdas, QTest's templates) compiles about a
# third faster than at -O2 and runs no slower that a test would notice. Benchmarks keep -O2.
function(broker_set_test_optimization target)
    target_compile_options(${target} PRIVATE $<$<CONFIG:Release,RelWithDebInfo,MinSizeRel>:-Og>)
endfunction()

if(BROKER_SANITIZE)
    add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
    add_link_options(-fsanitize=address,undefined)
endif()
