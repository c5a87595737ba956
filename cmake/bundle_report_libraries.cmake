# Concatenates the browser builds of vega, vega-lite and vega-embed (in that order: each
# needs the one before) into one script for report.html. The minified files carry no
# license text, so each is preceded by a /*! ... */ comment with its name, version and
# LICENSE file, which minifiers and readers keep.
# Usage: cmake -DMODULES=node_modules -DOUTPUT=file.js -P bundle_report_libraries.cmake
set(bundle "")
foreach(package IN ITEMS vega vega-lite vega-embed)
  set(dir ${MODULES}/${package})
  file(READ ${dir}/package.json manifest)
  string(JSON version GET "${manifest}" version)
  string(JSON license GET "${manifest}" license)
  file(READ ${dir}/LICENSE license_text)
  string(REPLACE "*/" "* /" license_text "${license_text}")
  file(READ ${dir}/build/${package}.min.js code)
  # Inside <script>, "</script" would end the element early whatever the JavaScript means.
  string(REPLACE "</script" "<\\/script" code "${code}")
  string(APPEND bundle "/*! ${package} ${version} (${license})\n${license_text}*/\n${code}\n")
endforeach()
file(WRITE ${OUTPUT}.tmp "${bundle}")
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
