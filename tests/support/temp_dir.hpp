// SPDX-License-Identifier: MIT
#pragma once

#include <filesystem>   // path, temp_directory_path, create_directories, remove_all
#include <random>       // random_device
#include <string>       // string, to_string
#include <system_error> // error_code

namespace handoff_test {

/// A fresh directory under the system's temp directory, named from `prefix` and two random
/// numbers, removed with everything in it when the test is done with it.
struct temp_dir {
    std::filesystem::path path;
    explicit temp_dir(const std::string& prefix = "handoff_test") {
        std::random_device random;
        path = std::filesystem::temp_directory_path() /
               (prefix + "_" + std::to_string(random()) + "_" + std::to_string(random()));
        std::filesystem::create_directories(path);
    }
    ~temp_dir() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
};

} // namespace handoff_test
