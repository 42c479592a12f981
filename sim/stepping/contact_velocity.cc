// ContactVelocity (sim/stepping/contact_velocity.h).
#include "sapcontact/sim/stepping/contact_velocity.h"

namespace sapcontact {
namespace {

// v_c += J x for a contact block J (3 x n, column-major, 3 n entries at J)
// and the n velocities at x. Each row sums its products from column 0 up,
// starting at 0, and adds the sum to v_c: the same operations in the same
// order as Eigen 3.4's column-major matrix-vector kernel (one column block
// below 128 columns), so the result is bitwise that of
// v_c.noalias() += J * x, without the kernel's dispatch, which costs more
// than the 3 n products of a contact. N > 0: n known at compile time.
template <int N>
inline void AddBlockTimes(const double* J, Eigen::Index n, const double* x,
                          Vector3* v_c) {
  if (N > 0) n = N;
  for (int i = 0; i < 3; ++i) {
    double sum = 0.0;
    for (Eigen::Index j = 0; j < n; ++j) sum += J[i + 3 * j] * x[j];
    (*v_c)(i) += sum;
  }
}

inline void AddBlockTimes(const Eigen::MatrixXd& J, const double* x,
                          Vector3* v_c) {
  const Eigen::Index n = J.cols();
  if (n == 6) {  // a free body's tree
    AddBlockTimes<6>(J.data(), n, x, v_c);
  } else if (n < 128) {
    AddBlockTimes<0>(J.data(), n, x, v_c);
  } else {
    v_c->noalias() += J * Eigen::Map<const Eigen::VectorXd>(x, n);
  }
}

}  // namespace

Vector3 ContactVelocity(const Contact& c, const std::vector<int>& offsets,
                        const Eigen::VectorXd& v) {
  Vector3 v_c = c.bias_velocity;
  if (c.first.tree >= 0) {
    AddBlockTimes(c.first.J, v.data() + offsets[c.first.tree], &v_c);
  }
  if (c.second && c.second->tree >= 0) {
    AddBlockTimes(c.second->J, v.data() + offsets[c.second->tree], &v_c);
  }
  return v_c;
}

}  // namespace sapcontact
