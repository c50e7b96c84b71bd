# Writes the mpi.h that is staged and installed: include/mpi.h.in with the predefined datatypes'
# handles generated from src/datatype/builtin_types.def, the one list the library's datatype
# table is also compiled from (so a datatype's handle cannot differ between mpi.h and libampi).
#
# ampi_generate_mpi_h(<template> <builtin_types.def> <output>)
function(ampi_generate_mpi_h template def output)
  # Re-run CMake when the .def changes, as it does for the template (configure_file tracks that).
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${def})
  file(STRINGS ${def} entries REGEX "^AMPI_BUILTIN_TYPE\\(")
  set(lines "")
  set(expected 1)
  foreach(entry IN LISTS entries)
    if(NOT entry MATCHES "^AMPI_BUILTIN_TYPE\\(([A-Za-z0-9_]+), *([0-9]+),")
      message(FATAL_ERROR "${def}: cannot parse '${entry}'")
    endif()
    set(name ${CMAKE_MATCH_1})
    set(index ${CMAKE_MATCH_2})
    # Indices are dense from 1: they index the library's table (kBuiltinCount in datatype.hpp).
    if(NOT index EQUAL expected)
      message(FATAL_ERROR "${def}: ${name} has index ${index}, expected ${expected}")
    endif()
    math(EXPR expected "${expected} + 1")
    # 0x4c000000 | index: handles::kind::builtin_datatype (src/handles/handle.hpp; its kinds.cpp
    # fails the build if the two disagree).
    math(EXPR handle "0x4c000000 | ${index}" OUTPUT_FORMAT HEXADECIMAL)
    string(APPEND lines "#define ${name} ((MPI_Datatype)${handle})\n")
  endforeach()
  string(REGEX REPLACE "\n$" "" AMPI_BUILTIN_DATATYPES "${lines}")
  configure_file(${template} ${output} @ONLY)
endfunction()
