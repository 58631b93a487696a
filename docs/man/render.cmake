cmake_minimum_required(VERSION 3.25)
# Renders one manual page with go-md2man into OUT.gz:
#   cmake -DMD2MAN=... -DGZIP=... -DSOURCE=page.md [-DAPPEND=reference.md]
#         -DOUT=page.N -P render.cmake
# APPEND is a docs/ page whose body (without its own title) continues the
# manual page, so the configuration reference is written once, in docs/.
file(READ ${SOURCE} text)
if(APPEND)
  file(READ ${APPEND} reference)
  string(REGEX REPLACE "^# [^\n]*\n" "" reference "${reference}")
  string(APPEND text "${reference}")
endif()
# A manual page has no links to other pages' anchors: "[text](page.md#x)"
# keeps its text.
string(REGEX REPLACE "\\[([^]]*)\\]\\([^)]*\\)" "\\1" text "${text}")

# Tables become definition lists: a terminal is too narrow for the
# reference's wide tables (go-md2man does not wrap cells). Each row's first
# cell is the term; the definition is its last cell, then the others named by
# their column: "| `key` | 1 | 0–9 | what |" under "| key | default | range |
# meaning |" becomes "`key`" and ": what (default: 1; range: 0–9)".
string(REPLACE ";" "<semicolon>" text "${text}")
string(REPLACE "\n" ";" lines "${text}")
set(out "")
set(header "")
set(previous "")
foreach(line IN LISTS lines)
  if(line MATCHES "^\\|[-:| ]+\\|$")
    # The row before this rule was the header: take it back out.
    set(header "${previous}")
    string(LENGTH "${out}" length)
    string(LENGTH "${previous}\n" drop)
    math(EXPR keep "${length} - ${drop}")
    string(SUBSTRING "${out}" 0 ${keep} out)
  elseif(line MATCHES "^\\|" AND header)
    string(REGEX REPLACE "^\\| *(.*[^ ]) *\\|$" "\\1" row "${line}")
    string(REGEX REPLACE " *\\| *" ";" cells "${row}")
    string(REGEX REPLACE "^\\| *(.*[^ ]) *\\|$" "\\1" names "${header}")
    string(REGEX REPLACE " *\\| *" ";" names "${names}")
    list(LENGTH cells count)
    math(EXPR last "${count} - 1")
    list(GET cells 0 term)
    list(GET cells ${last} meaning)
    set(details "")
    if(last GREATER 1)
      math(EXPR before_last "${last} - 1")
      foreach(i RANGE 1 ${before_last})
        list(GET cells ${i} cell)
        list(GET names ${i} name)
        if(NOT cell STREQUAL "")
          list(APPEND details "${name}: ${cell}")
        endif()
      endforeach()
    endif()
    if(meaning STREQUAL "")
      list(JOIN details "<semicolon> " meaning)
    elseif(details)
      list(JOIN details "<semicolon> " joined)
      string(APPEND meaning " (${joined})")
    endif()
    string(APPEND out "${term}\n: ${meaning}\n\n")
    set(line "")
  else()
    set(header "")
    string(APPEND out "${line}\n")
  endif()
  set(previous "${line}")
endforeach()
string(REPLACE "<semicolon>" ";" text "${out}")
set(staged ${OUT}.md)
file(WRITE ${staged} "${text}")
execute_process(COMMAND ${MD2MAN} -in ${staged} -out ${OUT} COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${GZIP} -9n -c ${OUT} OUTPUT_FILE ${OUT}.gz COMMAND_ERROR_IS_FATAL ANY)
