# AmpiTesting: helpers for tests of MPI programs run under ampirun.
#
#   ampi_add_mpi_test(NAME <name> SOURCES <files...> VPS <v...>
#                     [ARGS <args...>] [LABELS <labels...>] [TIMEOUT <seconds>]
#                     [LIBRARIES <libs...>])
#
# Builds the executable <name> from SOURCES, linked with ampi::program (and LIBRARIES), into
# ${CMAKE_CURRENT_BINARY_DIR}, and adds one CTest test per V in VPS, named <name>.vp<V>, running
#   ${CMAKE_BINARY_DIR}/bin/ampirun -np 1 --vp <V> <name> <ARGS...>
# with the labels "mpi" plus LABELS and the timeout TIMEOUT (default 60 s).
# Further test properties can be set afterwards on <name>.vp<V> with set_tests_properties().
include_guard(GLOBAL)

function(ampi_add_mpi_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;TIMEOUT" "SOURCES;VPS;ARGS;LABELS;LIBRARIES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ampi_add_mpi_test: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_NAME)
    message(FATAL_ERROR "ampi_add_mpi_test: NAME is required")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "ampi_add_mpi_test(${arg_NAME}): SOURCES is required")
  endif()
  if(NOT arg_VPS)
    message(FATAL_ERROR "ampi_add_mpi_test(${arg_NAME}): VPS is required")
  endif()
  if(NOT DEFINED arg_TIMEOUT)
    set(arg_TIMEOUT 60)
  endif()
  if(NOT arg_TIMEOUT MATCHES "^[0-9]+(\\.[0-9]+)?$")
    message(FATAL_ERROR "ampi_add_mpi_test(${arg_NAME}): TIMEOUT '${arg_TIMEOUT}' is not a number")
  endif()

  add_executable(${arg_NAME} ${arg_SOURCES})
  target_link_libraries(${arg_NAME} PRIVATE ampi::program ${arg_LIBRARIES})
  set_target_properties(${arg_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})

  set(labels mpi ${arg_LABELS})
  list(REMOVE_DUPLICATES labels)
  set(vps ${arg_VPS})
  list(REMOVE_DUPLICATES vps)
  foreach(vp IN LISTS vps)
    if(NOT vp MATCHES "^[1-9][0-9]*$")
      message(FATAL_ERROR "ampi_add_mpi_test(${arg_NAME}): VPS entry '${vp}' is not a positive integer")
    endif()
    add_test(NAME ${arg_NAME}.vp${vp}
             COMMAND ${CMAKE_BINARY_DIR}/bin/ampirun -np 1 --vp ${vp} $<TARGET_FILE:${arg_NAME}>
                     ${arg_ARGS})
    set_tests_properties(${arg_NAME}.vp${vp} PROPERTIES LABELS "${labels}" TIMEOUT ${arg_TIMEOUT})
  endforeach()
endfunction()

# ampi_add_mpi_layouts(TARGET <existing ampi_add_mpi_test target> LAYOUTS <P:V or P:V:T...>
#                      [ARGS <args...>] [ENV <NAME=VALUE...>] [SUFFIX <s>] [TIMEOUT <s>])
# Adds runs of an MPI test program over several processes: one CTest test per layout, named
# <target>.np<P>.vp<V><suffix>, running `ampirun -np P --vp V`, labelled `mpi` and `multiproc`.
# P:V:T runs T PEs per process (SMP mode, `--pes-per-process T`): named
# <target>.np<P>.pes<T>.vp<V><suffix>, labelled `smp` too.
function(ampi_add_mpi_layouts)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "TARGET;SUFFIX;TIMEOUT" "LAYOUTS;ARGS;ENV")
  if(NOT arg_TARGET OR NOT arg_LAYOUTS)
    message(FATAL_ERROR "ampi_add_mpi_layouts: TARGET and LAYOUTS are required")
  endif()
  if(NOT DEFINED arg_TIMEOUT)
    set(arg_TIMEOUT 120)
  endif()
  foreach(layout IN LISTS arg_LAYOUTS)
    if(NOT layout MATCHES "^([1-9][0-9]*):([1-9][0-9]*)(:([1-9][0-9]*))?$")
      message(FATAL_ERROR "ampi_add_mpi_layouts(${arg_TARGET}): '${layout}' is not P:V or P:V:T")
    endif()
    set(np ${CMAKE_MATCH_1})
    set(vp ${CMAKE_MATCH_2})
    set(pes "${CMAKE_MATCH_4}")
    if(pes)
      set(name ${arg_TARGET}.np${np}.pes${pes}.vp${vp}${arg_SUFFIX})
      set(pes_args --pes-per-process ${pes})
      set(labels "mpi;multiproc;smp")
    else()
      set(name ${arg_TARGET}.np${np}.vp${vp}${arg_SUFFIX})
      set(pes_args)
      set(labels "mpi;multiproc")
    endif()
    add_test(NAME ${name}
             COMMAND ${CMAKE_BINARY_DIR}/bin/ampirun -np ${np} ${pes_args} --vp ${vp}
                     $<TARGET_FILE:${arg_TARGET}> ${arg_ARGS})
    set_tests_properties(${name} PROPERTIES LABELS "${labels}" TIMEOUT ${arg_TIMEOUT})
    if(arg_ENV)
      set_tests_properties(${name} PROPERTIES ENVIRONMENT "${arg_ENV}")
    endif()
  endforeach()
endfunction()
