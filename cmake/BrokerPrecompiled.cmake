# SPDX-License-Identifier: GPL-3.0-or-later
# broker_precompile(<target> <kind>): Qt's headers are most of every file's compile time (a third
# to a half of it, measured on the UI and test files), so each kind of target shares one
# precompiled set of them, made once by a small target of that kind's flags:
#   library         the rooms, brokerd, brokerctl (QT_NO_KEYWORDS, QT_NO_CAST_FROM_ASCII): Qt Core
#   widgets         the same flags, for the ui room and brokerdesk: Qt Core, Gui and Widgets
#   test            tests (plain Qt; -Og, see broker_set_test_optimization): Qt Core and Network
#   widgets_test    tests of the ui room (-Og): Qt Core, Network, Gui and Widgets
# Benchmarks are few and compile at the build's own optimization, without a precompiled set.
# A precompiled header is used only where the compiler finds it valid (-Winvalid-pch, an error
# with BROKER_WERROR), so a flag that drifts from its kind's fails loudly instead of silently
# compiling slower: a target must link every Qt module of its kind (Qt's headers read
# QT_<MODULE>_LIB), and flags that change glibc's headers (readline's) keep a target out. BROKER_PCH=OFF compiles every file on its own includes alone.
option(BROKER_PCH "Precompile Qt's headers once per kind of target" ON)

# Glibc's headers read it, so it must be the same in every C++ file sharing a precompiled header;
# hiredis's pkg-config flags set it on whatever links hiredis.
add_compile_definitions($<$<COMPILE_LANGUAGE:CXX>:_FILE_OFFSET_BITS=64>)

set(BROKER_PCH_library QtCore)
set(BROKER_PCH_widgets QtCore QtGui QtWidgets)
set(BROKER_PCH_test QtCore QtNetwork)
set(BROKER_PCH_widgets_test QtCore QtNetwork QtGui QtWidgets)

function(broker_precompile target kind)
    if(NOT BROKER_PCH)
        return()
    endif()
    if(NOT DEFINED BROKER_PCH_${kind})
        message(FATAL_ERROR "broker_precompile: unknown kind '${kind}'")
    endif()
    set(owner broker_pch_${kind})
    if(NOT TARGET ${owner})
        # The owner compiles nothing of its own: one empty file, the kind's flags and headers.
        add_library(${owner} OBJECT ${PROJECT_SOURCE_DIR}/cmake/precompiled/empty.cpp)
        set(qt_targets)
        set(headers)
        foreach(module IN LISTS BROKER_PCH_${kind})
            string(REGEX REPLACE "^Qt" "Qt6::" qt_target ${module})
            list(APPEND qt_targets ${qt_target})
            list(APPEND headers <${module}>)
        endforeach()
        target_link_libraries(${owner} PRIVATE ${qt_targets})
        if(kind MATCHES "^(library|widgets)$")
            target_compile_definitions(${owner} PRIVATE QT_NO_KEYWORDS QT_NO_CAST_FROM_ASCII)
        endif()
        broker_set_warnings(${owner})
        if(kind MATCHES "test$")
            broker_set_test_optimization(${owner})
        endif()
        target_precompile_headers(${owner} PRIVATE ${headers})
    endif()
    target_precompile_headers(${target} REUSE_FROM ${owner})
    # AUTOMOC would otherwise run moc over the precompiled header (all of the kind's Qt headers,
    # no class of ours) for every target sharing it: a third of a test's AUTOMOC time.
    get_target_property(owner_dir ${owner} BINARY_DIR)
    set_source_files_properties(${owner_dir}/CMakeFiles/${owner}.dir/cmake_pch.hxx
        TARGET_DIRECTORY ${owner} ${target} PROPERTIES SKIP_AUTOGEN ON)
    if(kind MATCHES "test$")
        # A test includes its own moc output, so AUTOMOC's mocs_compilation.cpp is empty; loading
        # the precompiled headers (about 240 MB) would be all of its compile time, a second a test.
        set_source_files_properties(${CMAKE_CURRENT_BINARY_DIR}/${target}_autogen/mocs_compilation.cpp
            TARGET_DIRECTORY ${target} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endif()
endfunction()
