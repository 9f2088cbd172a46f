// Commands of the attnzoo program that live outside main.cpp.
#pragma once
#include <string>
#include <vector>

#include "train/cli.h"
#include "train/config.h"

namespace az {

// `attnzoo train --help`: its flags and defaults come from train_flags()
// (train/config.h) and model_flags() (train/model.h), the tables the code reads.
std::string train_help();
// The TrainConfig fields `attnzoo train` reads from its flags (steps, batch, lr,
// ..., seed, out); a flag not given keeps tc's value.
void train_config_from_flags(const Flags& f, TrainConfig& tc);

// The attnzoo program: argv[1] is the command.  Returns the exit status.
int cli_main(int argc, char** argv);

// attnzoo pattern --model M --seq-len N --out F.png: the entries a variant computes.
int cmd_pattern(const std::vector<std::string>& args);
// attnzoo attnmap --ckpt CKPT --index I --out F.png: a trained model's attention weights.
int cmd_attnmap(const std::vector<std::string>& args);
// attnzoo lra --preset quick|mini|full --out DIR: every model on every task (train/lab/lra.h).
int cmd_lra(const std::vector<std::string>& args);
int cmd_recall(const std::vector<std::string>& args);
// attnzoo plot --run DIR: a run's training and validation curves (train/lab/plot.h).
int cmd_plot(const std::vector<std::string>& args);
// attnzoo docs --out DIR: one generated Markdown page per model and an index (train/lab/docs.cpp).
int cmd_docs(const std::vector<std::string>& args);
// attnzoo export --ckpt CKPT --out F.safetensors: parameters, buffers and configuration (train/cli/export.cpp).
int cmd_export(const std::vector<std::string>& args);
// attnzoo import --in F.safetensors --out CKPT: the checkpoint back from an exported file.
int cmd_import(const std::vector<std::string>& args);

// attnzoo predict --ckpt CKPT INPUT ...: top classes for new inputs (train/cli/predict.cpp).
int cmd_predict(const std::vector<std::string>& args);
// attnzoo generate --ckpt CKPT --prompt TEXT: bytes sampled from a language model (train/generate.cpp).
int cmd_generate(const std::vector<std::string>& args);
// attnzoo bench-generate: generation tokens/s and state memory against context (train/lab/bench_generate.cpp).
int cmd_bench_generate(const std::vector<std::string>& args);

}  // namespace az
