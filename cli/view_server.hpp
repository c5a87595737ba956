// view_server.hpp: the routes of `mirac view` on cpp-httplib's server: the page, the JSON
// API over an AnswerIndex (engine/view), and the run's report files.
#pragma once

#include <filesystem>

#include <httplib.h>

#include "engine/view/index.hpp"

namespace mirac::cli {

/// Serves `/` (the page), `/api/meta`, `/api/answers`, `/api/answer/<id>`, `/api/pairs`,
/// and `/report` (the files of `results_dir`, when it holds a report.html). The index must
/// outlive the server; it is only read, so the server's threads share it without a lock.
void add_view_routes(httplib::Server& server, const view::AnswerIndex& index, const std::filesystem::path& results_dir);

}  // namespace mirac::cli
