# Runs the orrery binary and checks a bad-input failure: exit status 2 and
# exactly one line on stderr matching EXPECT (a regular expression).
# cmake -DORRERY=<binary> -DARGS="run;--set;x=1" -DEXPECT=<regex> -DWORKDIR=<dir> -P expect_error.cmake
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(COMMAND ${ORRERY} ${ARGS} WORKING_DIRECTORY ${WORKDIR}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 2)
  message(FATAL_ERROR "exit status ${status}, expected 2\nstdout: ${out}\nstderr: ${err}")
endif()
string(REGEX MATCHALL "\n" newlines "${err}")
list(LENGTH newlines lines)
if(NOT lines EQUAL 1)
  message(FATAL_ERROR "stderr has ${lines} lines, expected one:\n${err}")
endif()
if(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "stderr does not match '${EXPECT}':\n${err}")
endif()
if(EXISTS ${WORKDIR}/orrery-out)
  message(FATAL_ERROR "a failed run left output behind in ${WORKDIR}/orrery-out")
endif()
