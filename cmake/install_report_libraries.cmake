# Runs `npm ci` for report.html's chart libraries (cmake/report_libraries.cmake) and, when
# it fails, says why in mirac's words and what to do, instead of leaving a raw npm error in
# the middle of the build.
# Usage: cmake -DNPM=npm -DDIR=BUILD/web -DSTAMP=BUILD/web/installed.stamp -P install_report_libraries.cmake
execute_process(
  COMMAND ${NPM} ci --no-audit --no-fund --ignore-scripts --prefer-offline --loglevel=error
  WORKING_DIRECTORY ${DIR}
  RESULT_VARIABLE status
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  string(STRIP "${err}${out}" said)
  message(FATAL_ERROR
    "mirac: could not install report.html's chart libraries (vega, vega-lite, vega-embed, "
    "pinned in web/package-lock.json) with `npm ci`: it needs the npm registry once, and "
    "the registry did not answer (no network, or a proxy npm has not been told of).\n"
    "Any one of these fixes it:\n"
    "  - tell npm the proxy: npm config set proxy http://HOST:PORT && npm config set "
    "https-proxy http://HOST:PORT (or set HTTPS_PROXY), then build again;\n"
    "  - on a machine with network, run `npm ci` once in a copy of web/ and copy npm's cache "
    "(~/.npm/_cacache) here: the build installs from the cache with no network;\n"
    "  - build without charts: cmake -DMIRAC_CHARTS=OFF ... (reports then show every table, "
    "and in place of each figure a note saying the charts were left out).\n"
    "npm said: ${said}")
endif()
file(TOUCH ${STAMP})
