// SPDX-License-Identifier: MIT
// plan.json `assets`: the models, datasets and files the workload loads, from the fingerprint's
// asset findings, each with the file:line that asks for it. Contract: one entry per (kind, id,
// revision), its `from` listing every place in file order; `fetch` says whether `repo2rocm run`'s
// environment stage fetches it (Hugging Face models and datasets named in the code or in a
// `huggingface-cli download`, plain URLs of a download), and `why_not` why an entry is not
// fetched (a README link, a torch.hub repository, Google Drive, an id that is a repository path).
#pragma once

#include <r2r/planning/fingerprint.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>

namespace r2r::planning::detail {

/// `tree`: the checked-out repository (an id whose first part is a path there is a local
/// directory, not a hub id); empty: not checked.
nlohmann::json plan_assets(const fingerprint& fp, const std::filesystem::path& tree);

}  // namespace r2r::planning::detail
