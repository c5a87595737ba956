// page.cpp: the annotation page of `mirac annotate sample`: one self-contained HTML file
// (no network, no external file) that shows one answer at a time with its prompt, the
// seed's checklist and the rubric's anchors, takes a score per dimension (N/A where the
// rubric allows it) and a comment, keeps the work in the browser's storage, and saves the
// annotation sheet as CSV for `mirac annotate import`. The page is web/annotate/ (compiled
// in: runtime/report/web_files.hpp); here it is only filled with the sample's data.
#include <string>

#include "engine/annotate/sample.hpp"
#include "runtime/report/web_files.hpp"
#include "runtime/text/html_escape.hpp"

namespace mirac {

std::string annotation_page(const nlohmann::ordered_json& data) {
  const std::string title = html_escape("Annotate " + data.value("spec", std::string("audit")));
  // The answers, prompts and checklists are untrusted: as JSON escaped for a <script>
  // element, so that no `<!--`, `<script` or `</script>` in them can end the data block.
  const std::string json = data.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  const std::string_view banner = data.value("simulated", false) ? web::file("annotate/simulated-banner.html") : "";
  return web::fill(web::file("annotate/page.html"),
                   {{"<!-- mirac:title -->", title},
                    {R"(<link rel="stylesheet" href="annotate.css">)", web::inline_style(web::file("annotate/annotate.css"))},
                    {"<!-- mirac:simulated-banner -->", banner},
                    {"<!-- mirac:heading -->", title},
                    {"<!-- mirac:data -->", script_json(json)},
                    {R"(<script src="annotate.js"></script>)", web::inline_script(web::file("annotate/annotate.js"))}});
}

}  // namespace mirac
