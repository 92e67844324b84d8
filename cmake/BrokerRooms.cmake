# SPDX-License-Identifier: GPL-3.0-or-later
# broker_add_room(<room> DIR <folder> SOURCES <files...> [PUBLIC <targets...>] [PRIVATE <targets...>])
#
# One room of the house plan (docs/architecture.md) as a STATIC library `broker_<room>` with the
# alias `Broker::<room>`. Code includes another room's headers as "<room>/<file>.h"; each room
# gets an include root of its own (a folder in the build tree holding one link, <room> -> its
# sources), so such an include compiles only where the room is linked: a dependency the plan
# does not allow fails to build. Rooms whose links (PUBLIC or PRIVATE) name other rooms record
# them for the layering test, which checks them against docs/architecture.md.
function(broker_add_room room)
    cmake_parse_arguments(ARG "" "DIR" "SOURCES;PUBLIC;PRIVATE" ${ARGN})
    set(target broker_${room})
    qt_add_library(${target} STATIC ${ARG_SOURCES})
    add_library(Broker::${room} ALIAS ${target})

    set(root "${PROJECT_BINARY_DIR}/include/${room}")
    file(MAKE_DIRECTORY "${root}")
    if(NOT EXISTS "${root}/${room}")
        file(CREATE_LINK "${ARG_DIR}" "${root}/${room}" SYMBOLIC)
    endif()
    target_include_directories(${target} PUBLIC "${root}")

    target_link_libraries(${target} PUBLIC ${ARG_PUBLIC} PRIVATE ${ARG_PRIVATE})
    # Library code spells out its string conversions; tests may use plain literals.
    target_compile_definitions(${target} PRIVATE QT_NO_KEYWORDS QT_NO_CAST_FROM_ASCII)
    broker_set_warnings(${target})
    if("Qt6::Widgets" IN_LIST ARG_PUBLIC OR "Qt6::Widgets" IN_LIST ARG_PRIVATE)
        broker_precompile(${target} widgets)
    else()
        broker_precompile(${target} library)
    endif()

    set_target_properties(${target} PROPERTIES UNITY_BUILD ${BROKER_UNITY_BUILD} UNITY_BUILD_BATCH_SIZE 8)

    broker_register_room(${room} ${target} "${ARG_DIR}")
endfunction()

# Records a room (or a program: brokerd, brokerctl, brokerdesk) for the layering test.
function(broker_register_room name target dir)
    file(RELATIVE_PATH folder "${PROJECT_SOURCE_DIR}" "${dir}")
    set_property(GLOBAL APPEND PROPERTY BROKER_ROOMS "${name}|${target}|${folder}")
endfunction()

# Writes every registered room as the build links it, one "name folder -> rooms | libraries" line
# each ("(room)": linked PRIVATE), for the layering test. Called once, after every room and program is declared.
function(broker_write_rooms file)
    get_property(rooms GLOBAL PROPERTY BROKER_ROOMS)
    set(text "")
    foreach(entry IN LISTS rooms)
        string(REPLACE "|" ";" entry "${entry}")
        list(GET entry 0 name)
        list(GET entry 1 target)
        list(GET entry 2 folder)
        get_target_property(links ${target} LINK_LIBRARIES)
        get_target_property(passed ${target} INTERFACE_LINK_LIBRARIES)
        set(deps "")
        set(libraries "")
        foreach(link IN LISTS links)
            if(link MATCHES "^Broker::(.+)$")
                # A room linked PRIVATE is written "(name)": its headers are not passed on.
                if(link IN_LIST passed)
                    list(APPEND deps ${CMAKE_MATCH_1})
                else()
                    list(APPEND deps "(${CMAKE_MATCH_1})")
                endif()
            elseif(link MATCHES "::" OR link STREQUAL "yaml-cpp")
                list(APPEND libraries ${link})
            endif()
        endforeach()
        list(SORT deps)
        list(REMOVE_DUPLICATES libraries)
        list(SORT libraries)
        list(JOIN deps " " deps)
        list(JOIN libraries " " libraries)
        string(APPEND text "${name} ${folder} -> ${deps} | ${libraries}\n")
    endforeach()
    file(GENERATE OUTPUT "${file}" CONTENT "${text}")
endfunction()
