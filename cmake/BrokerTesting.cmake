# SPDX-License-Identifier: GPL-3.0-or-later
# broker_add_test(<name> SOURCES <files...> LIBRARIES <targets...> [LABELS <labels...>] [ENVIRONMENT <VAR=value...>])
# One Qt Test executable per tested class; registered with CTest under its own name.
# broker_add_test_run(<name> PROGRAM <test program> [LABELS ...] [ENVIRONMENT ...] [TIMEOUT <s>])
# The same program run once more under another name, its environment choosing what differs (the
# store, TLS): a suite that proves two backends keep one contract is compiled once.

# The longest tests start first: on a clean checkout CTest knows no durations and starts tests in
# the order they were added, so one that takes a minute and a half and starts last runs alone at
# the end. Seconds on the 2-core build machine (release tree); COST orders and limits nothing.
set(BROKER_TEST_COSTS
    packaging 97 tst_redisfailover 40 tst_restapi_cluster 34 tst_brokerdesk 26 tst_clusterrouter 23
    tst_clusterfailover 23 tst_clusterreshard 22 tst_clusterreshard_valkey_cluster 22 tst_redisstore 21
    tst_redisstore_valkey 21 tst_events_tls 21 tst_clusterrouter_valkey_cluster 21 tst_brokerctlworkflows 18
    tst_redisstore_tls 18 tst_crossbrokerwakeups 17 tst_crossbrokerwakeups_valkey_cluster 17 tst_events 17
    tst_queuedetailpage 14)

function(broker_set_test_cost name)
    list(FIND BROKER_TEST_COSTS ${name} index)
    if(index GREATER_EQUAL 0)
        math(EXPR index "${index} + 1")
        list(GET BROKER_TEST_COSTS ${index} seconds)
        set_tests_properties(${name} PROPERTIES COST ${seconds})
    endif()
endfunction()

function(broker_add_test name)
    cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES;LABELS;ENVIRONMENT" ${ARGN})
    add_executable(${name} ${ARG_SOURCES})
    # Qt Network for every test: its headers are in the tests' precompiled set (BrokerPrecompiled.cmake).
    target_link_libraries(${name} PRIVATE Qt6::Test Qt6::Network ${ARG_LIBRARIES})
    target_compile_definitions(${name} PRIVATE
        BROKER_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data"
        BROKER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    broker_set_warnings(${name})
    broker_set_test_optimization(${name})
    if(ARG_LIBRARIES MATCHES "Broker::ui|Qt6::Widgets")
        broker_precompile(${name} widgets_test)
    else()
        broker_precompile(${name} test)
    endif()
    broker_add_test_run(${name} PROGRAM ${name} LABELS ${ARG_LABELS} ENVIRONMENT ${ARG_ENVIRONMENT})
endfunction()

function(broker_add_test_run name)
    cmake_parse_arguments(ARG "" "PROGRAM;TIMEOUT" "LABELS;ENVIRONMENT" ${ARGN})
    if(NOT ARG_TIMEOUT)
        set(ARG_TIMEOUT 120)
    endif()
    add_test(NAME ${name} COMMAND ${ARG_PROGRAM})
    set_tests_properties(${name} PROPERTIES
        LABELS "${ARG_LABELS}"
        TIMEOUT ${ARG_TIMEOUT}
        ENVIRONMENT "QT_QPA_PLATFORM=offscreen;${ARG_ENVIRONMENT}")
    broker_set_test_cost(${name})
endfunction()
