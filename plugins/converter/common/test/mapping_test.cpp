// SPDX-License-Identifier: MIT
// The generated mapping: sorted, indexed, idempotent, and with the rows the converter relies on.
#include <r2r/convert/mapping.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using namespace r2r::plugins::converter;

TEST(Mapping, RowsAreSortedAndUnique) {
  const auto rows = name_rows();
  ASSERT_GT(rows.size(), 8000u);
  for (std::size_t i = 1; i < rows.size(); ++i) ASSERT_LT(rows[i - 1].cuda, rows[i].cuda) << rows[i].cuda;
}

TEST(Mapping, EveryRowIsFoundByItsName) {
  for (const auto& row : name_rows()) {
    ASSERT_EQ(find_name(row.cuda), &row) << row.cuda;
    ASSERT_TRUE(may_be_name(row.cuda[0], row.cuda.size() > 1 ? row.cuda[1] : '\0')) << row.cuda;
  }
  EXPECT_EQ(find_name("notACudaName"), nullptr);
  EXPECT_EQ(find_name(""), nullptr);
}

// The rename pass asks find_any_name instead of the three lookups: it must answer what they do,
// for every name of the tables and for names that are in none (near misses included).
TEST(Mapping, FindAnyNameAnswersWhatTheThreeLookupsAnswer) {
  std::vector<std::string> names;
  for (const auto& row : name_rows()) {
    names.emplace_back(row.cuda);
    names.push_back(std::string(row.cuda) + "x");
    names.emplace_back(row.cuda.substr(0, row.cuda.size() - 1));
    if (!row.hip.empty()) names.emplace_back(row.hip);
  }
  for (const auto& row : namespace_rows()) names.emplace_back(row.cuda);
  for (const auto& row : unlisted_rows()) names.emplace_back(row.cuda);
  for (const char* other : {"", "c", "cu", "x", "int", "__global__", "threadIdx", "cudaMallocc", "notACudaName"})
    names.emplace_back(other);
  std::size_t found = 0;
  for (const auto& name : names) {
    const name_lookup any = find_any_name(name);
    ASSERT_EQ(any.row, find_name(name)) << name;
    ASSERT_EQ(any.ns, find_namespace(name)) << name;
    ASSERT_EQ(any.unlisted, find_unlisted(name)) << name;
    found += any.row != nullptr || any.ns != nullptr || any.unlisted != nullptr;
  }
  EXPECT_GE(found, name_rows().size() + namespace_rows().size() + unlisted_rows().size());
}

TEST(Mapping, KnownRows) {
  const auto* malloc_row = find_name("cudaMalloc");
  ASSERT_NE(malloc_row, nullptr);
  EXPECT_EQ(malloc_row->hip, "hipMalloc");
  EXPECT_EQ(malloc_row->api, api::runtime);
  EXPECT_EQ(malloc_row->entity, entity::function);
  EXPECT_GT(malloc_row->hip_added, 0u);

  const auto* stream = find_name("cudaStream_t");
  ASSERT_NE(stream, nullptr);
  EXPECT_EQ(stream->hip, "hipStream_t");
  EXPECT_EQ(stream->entity, entity::data);

  const auto* shfl = find_name("__shfl_down_sync");
  ASSERT_NE(shfl, nullptr);
  EXPECT_TRUE(shfl->hip.empty()) << "the tables list no HIP form of the _sync intrinsics";

  const auto* cudnn = find_name("cudnnCreate");
  ASSERT_NE(cudnn, nullptr);
  EXPECT_TRUE(cudnn->hip.empty()) << "hipDNN was never released";
  EXPECT_EQ(cudnn->alternative, "miopenCreate");

  const auto* gemm = find_name("cublasSgemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->hip, "hipblasSgemm");
  EXPECT_EQ(gemm->api, api::blas);
}

TEST(Mapping, NoHipNameIsACudaNameThatMapsElsewhere) {
  for (const auto& row : name_rows()) {
    if (row.hip.empty() || row.hip == row.cuda) continue;
    const name_row* again = find_name(row.hip);
    if (again != nullptr) {
      EXPECT_TRUE(again->hip.empty() || again->hip == row.hip) << row.cuda << " -> " << row.hip << " -> " << again->hip;
    }
  }
}

TEST(Mapping, HeadersLibrariesNamespaces) {
  const auto* rt = find_header("cuda_runtime.h");
  ASSERT_NE(rt, nullptr);
  EXPECT_EQ(rt->hip, "hip/hip_runtime.h");
  EXPECT_EQ(rt->action, header_action::rewrite);
  const auto* cub = find_header("cub/block/block_reduce.cuh");
  ASSERT_NE(cub, nullptr);
  EXPECT_EQ(cub->hip, "hipcub/hipcub.hpp");
  EXPECT_EQ(find_header("thrust/device_vector.h")->action, header_action::keep);
  EXPECT_EQ(find_header("cudnn.h")->action, header_action::manual);
  EXPECT_EQ(find_header("vector"), nullptr);
  EXPECT_EQ(find_library("cublas")->hip, "hipblas");
  EXPECT_EQ(find_cmake_target("CUDA::cudart")->cmake_hip, "hip::host");
  EXPECT_EQ(find_namespace("cub")->hip, "hipcub");
}

TEST(Mapping, VersionsParseAndFormat) {
  EXPECT_EQ(parse_version("6.2"), 60200u);
  EXPECT_EQ(parse_version("6.2.1"), 60201u);
  EXPECT_EQ(parse_version("10.0.0"), 100000u);
  EXPECT_FALSE(parse_version("6"));
  EXPECT_FALSE(parse_version("6.x"));
  EXPECT_FALSE(parse_version("6.2.1.4"));
  EXPECT_FALSE(parse_version("6.100"));
  EXPECT_EQ(format_version(50200), "5.2.0");
  EXPECT_EQ(format_version(0), "");
}

}  // namespace
