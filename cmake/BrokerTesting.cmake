# SPDX-License-Identifier: GPL-3.0-or-later
# broker_add_test(<name> SOURCES <files...> LIBRARIES <targets...> [LABELS <labels...>] [ENVIRONMENT <VAR=value...>])
# One Qt Test executable per tested class; registered with CTest under its own name.
function(broker_add_test name)
    cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES;LABELS;ENVIRONMENT" ${ARGN})
    add_executable(${name} ${ARG_SOURCES})
    # Qt Network for every test: its headers are in the tests' precompiled set (BrokerPrecompiled.cmake).
    target_link_libraries(${name} PRIVATE Qt6::Test Qt6::Network ${ARG_LIBRARIES})
    target_compile_definitions(${name} PRIVATE
        BROKER_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data"
        BROKER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    broker_set_warnings(${name})
    if(ARG_LIBRARIES MATCHES "Broker::ui|Qt6::Widgets")
        broker_precompile(${name} widgets_test)
    else()
        broker_precompile(${name} test)
    endif()
    add_test(NAME ${name} COMMAND ${name})
    set_tests_properties(${name} PROPERTIES
        LABELS "${ARG_LABELS}"
        TIMEOUT 120
        ENVIRONMENT "QT_QPA_PLATFORM=offscreen;${ARG_ENVIRONMENT}")
endfunction()
