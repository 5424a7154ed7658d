// SPDX-License-Identifier: MIT
// What r2r.guard.scale-down compares: the options of a command (`--epochs 90`, `--epochs=90`,
// hydra `trainer.max_epochs=90`, bare flags), the settings of a config line (`epochs: 90`,
// `"num_train_epochs": 3`, `max_steps = 1000`), which option names measure the experiment's
// scale (epochs, steps, batch size, dataset size, debug switches, model), and model size order.
#pragma once

#include <r2r/support/shell.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace r2r::plugins::guard::scale {

/// The scale family of an option or config key (normalised: lower case, `-` as `_`, last dotted
/// part): "epochs", "steps", "batch_size", "dataset", "debug_mode", "model", or "" for none.
std::string family_of(const std::string& key);

/// Normalises an option or key name: strips leading `-`/`+`/`~`, lower case, `-` as `_`, keeps
/// the last `.`-separated part ("trainer.max_epochs" -> "max_epochs").
std::string normalise_key(const std::string& key);

/// Options of one simple command after the program (and after the script when `python x.py`):
/// normalised name -> value ("true" for a bare flag). Later occurrences win.
std::map<std::string, std::string> options_of(const shell::simple_command& cmd);

/// What a simple command runs, for matching it with the plan's workload: the script or module
/// (`train.py`, `-m pkg.mod`) with its path normalised, else the program name. Empty for none.
std::string entry_of(const shell::simple_command& cmd);

/// `key: value` / `key = value` / `"key": value` / `--key value` settings of one text line, keys normalised.
std::map<std::string, std::string> settings_of_line(const std::string& line);

/// A number in `value` ("90", "1e3", "0.5", "100%"), or nullopt.
std::optional<double> number_of(const std::string& value);

/// A dataset slice in `value` ("train[:100]", "train[:10%]"), or false.
bool has_slice(const std::string& value);

/// True when model `now` is a smaller size of model `before`: both name a parameter count and
/// `now`'s is lower (7b -> 1.1b), or they are one family (the names without size words and counts
/// agree) and `now`'s size word ranks lower (tiny < small < base or none < medium < large < xl < xxl).
bool smaller_model(const std::string& before, const std::string& now);

/// Why `now` is a scaled-down `before` for an option or setting of `family`, or "" when it is not.
std::string scaled_down(const std::string& family, const std::string& key, const std::optional<std::string>& before,
                        const std::string& now);

}  // namespace r2r::plugins::guard::scale
