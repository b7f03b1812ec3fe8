// SPDX-License-Identifier: Apache-2.0
// train_ext.cpp: the training recipes of `minifloat train` (train/recipe.hpp recipes(), the one list) and
// their SR stream rule (sr_stream) for minifloat.torch.QuantLinear, as plain Python data.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <vector>

#include "minifloat/registry.hpp"
#include "minifloat/scheme.hpp"
#include "minifloat/train/recipe.hpp"
#include "minifloat/train/study.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using namespace minifloat;
using namespace minifloat::train;

namespace {

const char* kind_name(OperandQuant::Kind k) {
  switch (k) {
    case OperandQuant::Kind::none: return "none";
    case OperandQuant::Kind::cast: return "cast";
    case OperandQuant::Kind::scheme: return "scheme";
    case OperandQuant::Kind::delayed: return "delayed";
  }
  return "none";
}

/// One operand's quantization: kind; for a scheme its spec string with the recipe's rule and element applied
/// (as Quantizer::apply applies them); the element format (cast/delayed/scheme); the rounding; the history.
nb::dict operand_dict(const OperandQuant& q) {
  nb::dict d;
  d["kind"] = kind_name(q.kind);
  d["scheme"] = nb::none();
  d["element"] = nb::none();
  if (q.kind == OperandQuant::Kind::scheme) {
    Scheme s = q.scheme;
    if (q.rule) s.rule = *q.rule;
    if (q.element) s.element.format = *q.element;
    d["scheme"] = scheme_spec(s);
    d["element"] = s.element.kind == ElementKind::int8 ? std::string("mxint8") : format_name(s.element.format);
    d["block_rows"] = s.block_rows;
    d["block_cols"] = s.block_cols;
    d["rule"] = std::string(name(s.rule));
  } else if (q.element) {
    d["element"] = format_name(*q.element);
  }
  d["round"] = std::string(name(q.rounding.rounding));
  d["overflow"] = std::string(name(q.rounding.overflow));
  d["sr_variant"] = std::string(name(q.rounding.sr_variant));
  d["sr_bits"] = q.rounding.sr_bits;
  d["history"] = q.history;
  d["wgrad_transform"] = transform_name(q.wgrad_transform);
  return d;
}

const char* storage_name(WeightStorage w) {
  return w == WeightStorage::fp32 ? "fp32" : w == WeightStorage::bf16_rne ? "bf16_rne" : "bf16_sr";
}

}  // namespace

void bind_train(nb::module_& m) {
  m.def(
      "train_recipes",
      [] {
        nb::list out;
        for (const Recipe& r : recipes()) {
          nb::dict d;
          d["name"] = r.name;
          d["source"] = r.source;
          d["x"] = operand_dict(r.x);
          d["w"] = operand_dict(r.w);
          d["g"] = operand_dict(r.g);
          d["weights"] = storage_name(r.weights);
          d["lr"] = r.lr;
          d["gaussws"] = r.gaussws;
          d["gaussws_bits"] = r.gaussws_bits;
          out.append(d);
        }
        return out;
      },
      "The recipes of `minifloat train` (train/recipe.hpp recipes(), in order) as dicts: name, source, x/w/g "
      "(kind none|cast|scheme|delayed, scheme spec, element, block_rows/block_cols, rule, round, overflow, "
      "sr_variant, sr_bits, history, wgrad_transform), weights, lr, gaussws, gaussws_bits.");
  m.def(
      "train_loss_svg",
      [](std::string_view model, const std::vector<std::string>& recipe_names, int seeds, const nb::list& runs) {
        StudyConfig cfg;
        cfg.model = lookup_name(name_table(TrainModel{}), model).value;
        cfg.recipes = parse_recipes([&] {
          std::string list;
          for (const std::string& r : recipe_names) (list += list.empty() ? "" : ",") += r;
          return list;
        }());
        cfg.seeds = seeds;
        std::vector<RunSummary> rs;
        for (nb::handle h : runs) {
          RunSummary r;
          r.recipe = nb::cast<std::string>(h["recipe"]);
          r.seed = nb::cast<int>(h["seed"]);
          r.loss_curve = nb::cast<std::vector<double>>(h["loss_curve"]);
          r.val_steps = nb::cast<std::vector<int>>(h["val_steps"]);
          r.val_curve = nb::cast<std::vector<double>>(h["val_curve"]);
          rs.push_back(std::move(r));
        }
        return loss_figure_svg(cfg, rs);
      },
      "model"_a, "recipes"_a, "seeds"_a, "runs"_a,
      "train/study.hpp loss_figure_svg: the loss.svg of `minifloat train` from runs given as dicts (recipe, seed, "
      "loss_curve per step, val_steps, val_curve); `model` (a train-model name) and `seeds` make the title.");
  m.def(
      "train_sr_stream",
      [](std::uint32_t layer, int operand, int gemm) {
        if (operand < 0 || operand > 2 || gemm < 0 || gemm > 2)
          throw Error("train_sr_stream: operand and gemm are 0..2 (x w g; fprop dgrad wgrad)");
        return sr_stream(layer, static_cast<Operand>(operand), static_cast<Gemm>(gemm));
      },
      "layer"_a, "operand"_a, "gemm"_a,
      "train/recipe.hpp sr_stream: the SR stream of (layer, operand x=0 w=1 g=2, gemm fprop=0 dgrad=1 wgrad=2).");
}
