// view_server.hpp: the routes of `mirac view` on cpp-httplib's server: the page, the JSON
// API over an AnswerIndex (engine/view), and the run's report files, each for requests
// addressed to this machine only; and the server's threads and timeouts.
#pragma once

#include <filesystem>

#include <httplib.h>

#include "cli/view_hosts.hpp"
#include "engine/view/index.hpp"

namespace mirac::cli {

/// Serves `/` (the page), `/api/meta`, `/api/answers`, `/api/answer/<id>`, `/api/pairs`,
/// and `/report` (the files of `results_dir`, when it holds a report.html). The index must
/// outlive the server. Its rows are only read, so the server's threads share them without
/// a lock; the texts a page shows are read from the index's one store, in turns
/// (AnswerIndex::texts).
/// A request whose Host `hosts` does not allow gets 403 and a line of plain text, on every
/// path (DNS rebinding: cli/view_hosts.hpp).
void add_view_routes(httplib::Server& server, const view::AnswerIndex& index, const std::filesystem::path& results_dir,
                     const ViewHosts& hosts);

/// Enough threads that idle or stuck connections do not hold up the others, and short
/// timeouts that free the threads they hold. Before the server listens.
void limit_view_connections(httplib::Server& server);

}  // namespace mirac::cli
