#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/Interp.h>

#include <ATen/Dispatch.h>
#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/OpMathType.h>
#include <ATen/TensorMeta.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <c10/util/accumulate.h>
#include <c10/util/irange.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#else
#include <ATen/ops/_interp_backward_native.h>
#include <ATen/ops/_interp_jvp_native.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/constant_pad_nd.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/fmod.h>
#include <ATen/ops/interp_native.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/real.h>
#include <ATen/ops/searchsorted.h>
#include <ATen/ops/sort.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/zeros_like.h>
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace at::meta {

// interp's result: the batch dimensions of x, xp and fp (all but their last)
// broadcast, followed by x's last dimension (the queries); a 0-d x is one
// query, with no dimension of its own.
static DimVector interp_batch_shape(
    const Tensor& x,
    const Tensor& xp,
    const Tensor& fp) {
  const auto x_batch = x.sizes().slice(0, std::max<int64_t>(x.dim() - 1, 0));
  const auto xp_batch = xp.sizes().slice(0, xp.dim() - 1);
  const auto fp_batch = fp.sizes().slice(0, fp.dim() - 1);
  DimVector batch(
      std::max({x_batch.size(), xp_batch.size(), fp_batch.size()}), 1);
  for (const auto batch_sizes : {x_batch, xp_batch, fp_batch}) {
    const auto offset = batch.size() - batch_sizes.size();
    for (const auto i : c10::irange(batch_sizes.size())) {
      auto& size = batch[offset + i];
      TORCH_CHECK(
          batch_sizes[i] == size || batch_sizes[i] == 1 || size == 1,
          "interp: expected the batch dimensions (all but the last) of x, xp and fp to broadcast, but got ",
          "x of shape ",
          x.sizes(),
          ", xp of shape ",
          xp.sizes(),
          " and fp of shape ",
          fp.sizes());
      size = size == 1 ? batch_sizes[i] : size;
    }
  }
  return batch;
}

// interp's result dtype: the promoted dtype of the three inputs.
static ScalarType interp_result_dtype(
    const Tensor& x,
    const Tensor& xp,
    const Tensor& fp) {
  return promoteTypes(
      promoteTypes(x.scalar_type(), xp.scalar_type()), fp.scalar_type());
}

TORCH_META_FUNC(interp)
(const Tensor& x,
 const Tensor& xp,
 const Tensor& fp,
 OptionalScalarRef left,
 OptionalScalarRef right,
 std::optional<double> period) {
  TORCH_CHECK(
      x.device() == xp.device() && x.device() == fp.device(),
      "interp: expected x, xp and fp on the same device, but got x on ",
      x.device(),
      ", xp on ",
      xp.device(),
      " and fp on ",
      fp.device(),
      "; move them to one device with .to(device)");
  TORCH_CHECK_TYPE(
      at::isFloatingType(fp.scalar_type()) ||
          (at::isComplexType(fp.scalar_type()) &&
           fp.scalar_type() != kComplexHalf),
      "interp: expected fp of a floating point or complex dtype (float16, bfloat16, float32, float64, ",
      "complex64, complex128), but got ",
      fp.scalar_type(),
      "; convert it first, e.g. fp.to(torch.float64)");
  TORCH_CHECK_TYPE(
      !x.is_complex() && !xp.is_complex(),
      "interp: expected real x and xp (the positions), but got x of dtype ",
      x.scalar_type(),
      " and xp of dtype ",
      xp.scalar_type(),
      "; only fp may be complex");
  TORCH_CHECK(
      xp.dim() >= 1 && fp.dim() >= 1,
      "interp: expected xp and fp with at least one dimension (their last holds the sample points), but got ",
      "xp.dim() = ",
      xp.dim(),
      " and fp.dim() = ",
      fp.dim());
  TORCH_CHECK(
      xp.size(-1) == fp.size(-1),
      "interp: expected xp and fp of the same length in their last dimension, but got xp.size(-1) = ",
      xp.size(-1),
      " and fp.size(-1) = ",
      fp.size(-1));
  TORCH_CHECK(
      xp.size(-1) > 0,
      "interp: expected at least one sample point, but xp and fp are empty in their last dimension");
  TORCH_CHECK(
      !period.has_value() || *period != 0,
      "interp: period must be non-zero; pass period=None for a non-periodic interpolation");
  if (!fp.is_complex()) {
    TORCH_CHECK_TYPE(
        !(left.has_value() && left.get().isComplex()) &&
            !(right.has_value() && right.get().isComplex()),
        "interp: left and right must be real numbers when fp is real (fp has dtype ",
        fp.scalar_type(),
        ")");
  }
  auto sizes = interp_batch_shape(x, xp, fp);
  if (x.dim() > 0) {
    sizes.push_back(x.size(-1));
  }
  set_output_raw_strided(
      0, sizes, {}, fp.options().dtype(interp_result_dtype(x, xp, fp)));
}

} // namespace at::meta

namespace at::native {

DEFINE_DISPATCH(interp_stub);

namespace {

// The sample points interp searches, as numpy.interp makes them:
// without a period, xp and fp as given; with one, xp mod period sorted
// (stably: numpy's argsort is not, so the order of equal points is ours) and
// fp in the same order, each extended by the last point one period before the
// first and the first one period after the last.
struct InterpKnots {
  Tensor xp;
  Tensor fp;
  Tensor order; // with a period: the sorted position of each sample point
  std::optional<double> period; // abs(period)
};

Tensor periodic_remainder(const Tensor& values, double period) {
  // numpy.remainder(values, period) for period > 0, as numpy's npy_divmod
  // computes it: the exact fmod, period added to a negative remainder, +0 for
  // a zero one (fmod's zero has the sign of values). From operators, not a
  // kernel: the derivatives run it on tensor subclasses too.
  //
  // The vectorized fmod is NaN where values / period overflows, so values
  // are first taken modulo period * 2^step, period * 2^(2 step), ...: the
  // largest of those the dtype holds first, each quotient below 2^step. Each
  // fmod is exact, so the remainder is the one of values itself.
  const int step = values.scalar_type() == kDouble ? 512 : 64;
  const double largest = values.scalar_type() == kDouble
      ? std::numeric_limits<double>::max()
      : static_cast<double>(std::numeric_limits<float>::max());
  std::vector<double> scales;
  for (double scale = std::ldexp(period, step);
       std::isfinite(scale) && scale <= largest;
       scale = std::ldexp(scale, step)) {
    scales.push_back(scale);
  }
  auto reduced = values;
  for (auto scale = scales.rbegin(); scale != scales.rend(); ++scale) {
    reduced = at::fmod(reduced, *scale);
  }
  const auto mod = at::fmod(reduced, period);
  return at::where(
      mod.lt(0),
      mod + period,
      at::where(mod.eq(0), at::zeros({}, mod.options()), mod));
}

// Sorted sample points (or values, or tangents, in their order) extended by
// the last one before the first and the first one after the last; shift: the
// period, for xp.
Tensor extend_periodic(const Tensor& sorted, std::optional<double> shift) {
  auto first = sorted.narrow(-1, 0, 1);
  auto last = sorted.narrow(-1, sorted.size(-1) - 1, 1);
  if (shift.has_value()) {
    return at::cat({last - *shift, sorted, first + *shift}, -1);
  }
  return at::cat({last, sorted, first}, -1);
}

// The dtype interp computes in, forward and derivatives alike: the result's,
// or with a period its opmath type: the positions (x mod period) and the
// extended sample points would round in float16 or bfloat16.
ScalarType interp_compute_dtype(
    const Tensor& x,
    const Tensor& xp,
    const Tensor& fp,
    std::optional<double> period) {
  const auto dtype = at::meta::interp_result_dtype(x, xp, fp);
  return period.has_value() ? at::toOpMathType(dtype) : dtype;
}

// values mod period. Where it must be differentiable (in the derivatives,
// which autograd differentiates again), its gradient is 1 and its value still
// exactly the remainder: r + (v - v) is r.
Tensor positions_mod(const Tensor& values, double period, bool differentiable) {
  auto remainder = periodic_remainder(values.detach(), period);
  return differentiable ? remainder + (values - values.detach()) : remainder;
}

InterpKnots interp_knots(
    const Tensor& xp,
    const Tensor& fp,
    std::optional<double> period,
    bool differentiable) {
  if (!period.has_value()) {
    return {xp, fp, Tensor(), std::nullopt};
  }
  const double p = std::abs(*period);
  const auto shape = infer_size_dimvector(xp.sizes(), fp.sizes());
  auto [sorted, order] = positions_mod(xp, p, differentiable)
                             .expand(shape)
                             .sort(
                                 /*stable=*/std::optional<bool>(true),
                                 /*dim=*/-1,
                                 /*descending=*/false);
  auto fp_sorted = fp.expand(shape).gather(-1, order);
  return {
      extend_periodic(sorted, p),
      extend_periodic(fp_sorted, std::nullopt),
      order,
      p};
}

// The positions of the queries: x, or x mod period.
Tensor interp_positions(
    const Tensor& x,
    const InterpKnots& knots,
    bool differentiable) {
  return knots.period.has_value()
      ? positions_mod(x, *knots.period, differentiable)
      : x;
}

// t's own rows, as (rows of t, len), contiguous: broadcasting t to the batch
// shape would copy each row as often as the result reads it.
Tensor own_rows(const Tensor& t, int64_t len) {
  return t.reshape({-1, len}).contiguous();
}

// The row of t that each of the result's rows reads, (rows,): t's rows
// numbered, then broadcast as t's batch dimensions are.
Tensor row_of(const Tensor& t, IntArrayRef batch, int64_t rows) {
  const auto t_batch = t.sizes().slice(0, std::max<int64_t>(t.dim() - 1, 0));
  return at::arange(c10::multiply_integers(t_batch), t.options().dtype(kLong))
      .view(t_batch)
      .expand(batch)
      .reshape({rows});
}

} // namespace

TORCH_IMPL_FUNC(interp_out)
(const Tensor& x,
 const Tensor& xp,
 const Tensor& fp,
 OptionalScalarRef left,
 OptionalScalarRef right,
 std::optional<double> period,
 const Tensor& result) {
  // Each result is written once its query is read, so out= may be x itself;
  // the sample points are read for every query.
  at::assert_no_internal_overlap(result);
  at::assert_no_partial_overlap(result, x);
  at::assert_no_overlap(result, xp);
  at::assert_no_overlap(result, fp);
  if (result.numel() == 0) {
    return;
  }
  const auto compute_dtype = interp_compute_dtype(x, xp, fp, period);
  const auto position_dtype = toRealValueType(compute_dtype);
  auto knots =
      interp_knots(xp.to(position_dtype), fp.to(compute_dtype), period, false);
  auto positions = interp_positions(x.to(position_dtype), knots, false);
  // numpy ignores left and right when there is a period: the extended sample
  // points cover [0, period), where every position lies.
  const auto left_ = period.has_value() || !left.has_value()
      ? std::optional<Scalar>()
      : left.get();
  const auto right_ = period.has_value() || !right.has_value()
      ? std::optional<Scalar>()
      : right.get();

  const int64_t queries = x.dim() > 0 ? x.size(-1) : 1;
  const int64_t rows = result.numel() / queries;
  const int64_t n = knots.xp.size(-1);
  auto batch = result.sizes().slice(0, result.dim() - (x.dim() > 0 ? 1 : 0));
  const bool in_place =
      result.is_contiguous() && compute_dtype == result.scalar_type();
  Tensor out = in_place
      ? result.view({rows, queries})
      : at::empty({rows, queries}, result.options().dtype(compute_dtype));
  const std::array<Tensor, 3> inputs{
      own_rows(positions, queries),
      own_rows(knots.xp, n),
      own_rows(knots.fp, n)};
  // An input of one row, or of one per result row, needs no index; where one
  // broadcasts otherwise, each result row names the row of each input it reads.
  const bool indexed = std::any_of(inputs.begin(), inputs.end(), [&](auto& t) {
    return t.size(0) != 1 && t.size(0) != rows;
  });
  const std::array<const Tensor*, 3> originals{
      &positions, &knots.xp, &knots.fp};
  Tensor row_index;
  if (indexed) {
    std::vector<Tensor> columns;
    for (const auto* t : originals) {
      columns.push_back(row_of(*t, batch, rows));
    }
    row_index = at::stack(columns, 1);
  }
  interp_stub(
      result.device().type(),
      out,
      inputs[0],
      inputs[1],
      inputs[2],
      row_index,
      left_,
      right_);
  if (!in_place) {
    result.copy_(out.view(result.sizes()));
  }
}

namespace {

// interp's local linear form at each query: the result is
//   w0 * fp[j0] + w1 * fp[j1]   (+ left or right where given and reached),
// with j1 = j0 + 1 inside the sample points, t = (x - xp[j0]) / (xp[j1] -
// xp[j0]) and slope = (fp[j1] - fp[j0]) / (xp[j1] - xp[j0]):
//   d/dx = slope, d/dfp[j0] = 1 - t, d/dfp[j1] = t,
//   d/dxp[j0] = slope * (t - 1), d/dxp[j1] = -slope * t.
// At a sample point the segment to its right is taken (numpy's search finds
// it); below xp[0] and above xp[-1] the result is fp[0] and fp[-1] (weight 1)
// unless left or right replaces it, and depends on no position. A NaN query
// gives itself.
struct InterpLinearization {
  InterpKnots knots;
  Tensor
      positions; // x (mod period), broadcast to the result's batch: (batch, M)
  Tensor j0, j1; // (batch, M), into the knots' last dimension
  Tensor w0, w1; // the weights of fp[j0] and fp[j1]
  Tensor d_x, d_xp0, d_xp1; // the derivatives for the query and xp[j0], xp[j1]
  DimVector batch; // the result's batch shape
};

InterpLinearization interp_linearization(
    const Tensor& x,
    const Tensor& xp,
    const Tensor& fp,
    const std::optional<Scalar>& left,
    const std::optional<Scalar>& right,
    std::optional<double> period) {
  InterpLinearization lin;
  const auto dtype = interp_compute_dtype(x, xp, fp, period);
  const auto position_dtype = toRealValueType(dtype);
  lin.knots = interp_knots(xp.to(position_dtype), fp.to(dtype), period, true);
  const bool left_is_fp = period.has_value() || !left.has_value();
  const bool right_is_fp = period.has_value() || !right.has_value();
  lin.batch = at::meta::interp_batch_shape(x, xp, fp);
  const auto x_ = (x.dim() == 0 ? x.reshape({1}) : x).to(position_dtype);
  const int64_t n = lin.knots.xp.size(-1);

  auto query_shape = lin.batch;
  query_shape.push_back(x_.size(-1));
  auto knot_shape = lin.batch;
  knot_shape.push_back(n);
  lin.positions = interp_positions(x_, lin.knots, true).expand(query_shape);
  const auto knots_xp = lin.knots.xp.expand(knot_shape);
  const auto knots_fp = lin.knots.fp.expand(knot_shape);

  // j: the last sample point at or below the query (numpy's binary search)
  const auto positions = lin.positions.detach();
  auto j = at::searchsorted(
               knots_xp.detach().contiguous(),
               positions.contiguous(),
               false,
               /*right=*/true) -
      1;
  lin.j0 = j.clamp(0, std::max<int64_t>(n - 2, 0));
  lin.j1 = (lin.j0 + 1).clamp_max(n - 1);
  const auto is_nan = positions.isnan();
  const auto valid = is_nan.logical_not();
  const auto inside = j.ge(0).logical_and(j.lt(n - 1)).logical_and(valid);
  const auto below = j.lt(0).logical_and(valid);
  const auto last = knots_xp.detach().narrow(-1, n - 1, 1);
  const auto above = j.ge(n - 1).logical_and(valid);
  const auto at_last = above.logical_and(positions.eq(last));

  const auto xp0 = knots_xp.gather(-1, lin.j0);
  const auto xp1 = knots_xp.gather(-1, lin.j1);
  const auto fp0 = knots_fp.gather(-1, lin.j0);
  const auto fp1 = knots_fp.gather(-1, lin.j1);
  const auto one = at::ones({}, xp0.options());
  const auto zero = at::zeros({}, xp0.options());
  const auto width = at::where(inside, xp1 - xp0, one);
  const auto t = (lin.positions - xp0) / width;
  const auto slope = (fp1 - fp0) / width;
  const auto value_zero = at::zeros({}, slope.options());

  const auto below_weight = left_is_fp ? below : at::zeros_like(below);
  const auto above_weight = right_is_fp ? above : at_last;
  lin.w0 = at::where(inside, one - t, at::where(below_weight, one, zero));
  lin.w1 = at::where(inside, t, at::where(above_weight, one, zero));
  lin.d_x = at::where(
      inside,
      slope,
      at::where(is_nan, at::ones({}, slope.options()), value_zero));
  lin.d_xp0 = at::where(inside, slope * (t - one), value_zero);
  lin.d_xp1 = at::where(inside, -slope * t, value_zero);
  return lin;
}

// The gradient of one sample-point tensor (xp or fp, shape like) from the
// gradients of the two points each query reads.
Tensor knots_backward(
    const InterpLinearization& lin,
    const Tensor& g0,
    const Tensor& g1,
    const Tensor& like) {
  auto knot_shape = lin.batch;
  knot_shape.push_back(lin.knots.xp.size(-1));
  auto grad = at::zeros(knot_shape, g0.options())
                  .scatter_add(-1, lin.j0, g0)
                  .scatter_add(-1, lin.j1, g1);
  if (lin.knots.period.has_value()) {
    // through the periodic extension and the sort: the first extended point
    // is the last sorted one, the last extended point the first sorted one
    const auto n = grad.size(-1) - 2;
    auto sorted = grad.narrow(-1, 1, n) +
        at::constant_pad_nd(grad.narrow(-1, n + 1, 1), {0, n - 1}) +
        at::constant_pad_nd(grad.narrow(-1, 0, 1), {n - 1, 0});
    auto order = lin.knots.order.expand(sorted.sizes());
    grad = at::zeros(sorted.sizes(), sorted.options())
               .scatter_add(-1, order, sorted);
  }
  return at::sum_to(grad, like.sizes());
}

// The tangent of the sample points the kernel reads, from that of xp or fp.
Tensor knots_forward(const InterpLinearization& lin, const Tensor& tangent) {
  auto knots = lin.knots.period.has_value()
      ? extend_periodic(
            tangent.expand(lin.knots.order.sizes()).gather(-1, lin.knots.order),
            std::nullopt)
      : tangent;
  auto knot_shape = lin.batch;
  knot_shape.push_back(knots.size(-1));
  return knots.expand(knot_shape);
}

Tensor real_if(const Tensor& t, bool is_real) {
  return is_real && t.is_complex() ? at::real(t) : t;
}

} // namespace

std::tuple<Tensor, Tensor, Tensor> _interp_backward(
    const Tensor& grad,
    const Tensor& x,
    const Tensor& xp,
    const Tensor& fp,
    const std::optional<Scalar>& left,
    const std::optional<Scalar>& right,
    std::optional<double> period,
    std::array<bool, 3> output_mask) {
  if (!grad.defined()) {
    return {};
  }
  auto lin = interp_linearization(x, xp, fp, left, right, period);
  const auto grad_ = x.dim() == 0 ? grad.unsqueeze(-1) : grad;
  Tensor grad_x, grad_xp, grad_fp;
  if (output_mask[0]) {
    grad_x = at::sum_to(
        real_if(grad_ * lin.d_x.conj(), true),
        x.dim() == 0 ? IntArrayRef{1} : x.sizes());
    grad_x = x.dim() == 0 ? grad_x.squeeze(-1) : grad_x;
  }
  if (output_mask[1]) {
    grad_xp = knots_backward(
        lin,
        real_if(grad_ * lin.d_xp0.conj(), true),
        real_if(grad_ * lin.d_xp1.conj(), true),
        xp);
  }
  if (output_mask[2]) {
    grad_fp = knots_backward(lin, grad_ * lin.w0, grad_ * lin.w1, fp);
  }
  // computed in opmath with a period: each in its input's dtype
  const std::array<const Tensor*, 3> inputs{&x, &xp, &fp};
  std::array<Tensor*, 3> grads{&grad_x, &grad_xp, &grad_fp};
  for (const auto i : c10::irange(3)) {
    if (grads[i]->defined()) {
      *grads[i] = grads[i]->to(inputs[i]->scalar_type());
    }
  }
  return std::make_tuple(
      std::move(grad_x), std::move(grad_xp), std::move(grad_fp));
}

Tensor _interp_jvp(
    const Tensor& x,
    const Tensor& xp,
    const Tensor& fp,
    const Tensor& x_t,
    const Tensor& xp_t,
    const Tensor& fp_t,
    const std::optional<Scalar>& left,
    const std::optional<Scalar>& right,
    std::optional<double> period) {
  auto lin = interp_linearization(x, xp, fp, left, right, period);
  const auto x_t_ = x_t.dim() == 0 ? x_t.reshape({1}) : x_t;
  const auto knots_xp_t = knots_forward(lin, xp_t);
  const auto knots_fp_t = knots_forward(lin, fp_t);
  auto result = lin.d_x * x_t_ + lin.w0 * knots_fp_t.gather(-1, lin.j0) +
      lin.w1 * knots_fp_t.gather(-1, lin.j1) +
      lin.d_xp0 * knots_xp_t.gather(-1, lin.j0) +
      lin.d_xp1 * knots_xp_t.gather(-1, lin.j1);
  result = result.to(at::meta::interp_result_dtype(x, xp, fp));
  return x.dim() == 0 ? result.squeeze(-1) : result;
}

} // namespace at::native
