// The SAP model of one time step (SAP paper §IV-V; docs/theory.md §2-5): built
// once from the user's SapProblem, it holds the participating trees (those
// touched by a contact or another constraint), the contacts and constraints
// grouped into patches, each one's regularization (R, v_hat from its
// Delassus estimate) and the block sparsity pattern of the Hessian.
// Stacked constraint vectors (v_c, gamma) hold the contacts' 3-vectors
// first, then the rows of the other constraints (limits, holonomic,
// actuation, in problem order): num_constraint_rows() = 3 num_contacts() +
// the other rows, which start at row_offset(). The solver iterates on it. It
// references the problem's matrices, so the problem must outlive it. Ordering
// and signs: contact_model/conventions.h.
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <vector>

#include "sapcontact/contact_model/constraint_row.h"
#include "sapcontact/contact_model/contact_constraint.h"
#include "sapcontact/parallel/thread_pool.h"
#include "sapcontact/solver/linear_algebra/block_sparse_symmetric_matrix.h"
#include "sapcontact/solver/sap/disjoint_sets.h"
#include "sapcontact/solver/sap/sap_problem.h"

namespace sapcontact {

class SapModel {
 public:
  /// One contact in model form.
  struct ModelContact {
    int tree_a{-1};  ///< participating index of the first tree
    int tree_b{-1};  ///< participating index of the second tree, or -1
    const Eigen::MatrixXd* J_a{nullptr};  ///< 3 x n_a block
    const Eigen::MatrixXd* J_b{nullptr};  ///< 3 x n_b block, or null
    double w{0.0};                        ///< Delassus estimate [1/kg]
    Vector3 bias{Vector3::Zero()};        ///< v_c at v = 0 [m/s]
    ContactConstraint constraint;
  };
  /// A limit, holonomic or actuation constraint in model form: `rows` rows
  /// of ConstraintRow starting at rows()[first_row] (and at row_offset() +
  /// first_row in the stacked vectors).
  struct ModelConstraint {
    int tree_a{-1};
    int tree_b{-1};
    const Eigen::MatrixXd* J_a{nullptr};  ///< rows x n_a block
    const Eigen::MatrixXd* J_b{nullptr};  ///< rows x n_b block, or null
    int first_row{0};
    int rows{0};
  };
  /// Constraint Hessian blocks at one v_c: G_k (3 x 3) per contact and the
  /// diagonal entry of each other constraint row.
  struct ConstraintHessians {
    std::vector<Matrix3> contacts;
    Eigen::VectorXd rows;
  };
  /// Contacts and constraints between the same pair of trees (SAP paper
  /// §IV-D), an edge of the tree graph (or a self-loop for those against
  /// the world).
  struct Patch {
    int tree_i{-1};  ///< the larger participating index
    int tree_j{-1};  ///< the smaller one, or -1 for a single-tree patch
    /// Index of block (tree_i, tree_j) in the Hessian pattern's off-diagonal
    /// list, or -1.
    int off_diagonal_block{-1};
    std::vector<int> contacts;
    std::vector<int> constraints;
  };

  /// An island: a connected component of the graph whose nodes are the
  /// participating trees and whose edges are the two-tree patches. Islands
  /// share no velocity and no contact, so the problem separates into one
  /// independent convex problem per island (docs/theory.md §8).
  struct Island {
    std::vector<int> trees;        ///< participating indices, increasing
    std::vector<int> contacts;     ///< contact indices, increasing
    std::vector<int> constraints;  ///< other constraints, increasing
    std::vector<int> patches;      ///< patch indices, increasing
    int num_velocities{0};
  };

  /// Builds the model. The problem must have been validated (Validate(),
  /// possibly without its positive-definiteness test: the model factors each
  /// tree and throws std::invalid_argument naming a tree that is not SPD).
  /// Delassus estimate: W_kk = sum_t J_kt A_t^-1 J_kt' with the FULL tree
  /// block A_t^-1 (via its Cholesky factor), not Drake's diagonal
  /// approximation: exact for free bodies, whose 6x6 A_t couples nothing
  /// anyway, and affordable since A_t is factored once per step and each
  /// contact costs three triangular solves of size n_t.
  /// @throws std::invalid_argument from ComputeRegularization (e.g. k = inf
  ///         with beta = 0), naming the contact.
  SapModel(const SapProblem& problem, const RegularizationParameters& reg);
  /// An empty model, to be built by Build().
  SapModel() = default;
  /// Rebuilds this model for `problem` (as the constructor does), reusing
  /// its storage: a solver that keeps one model across time steps allocates
  /// nothing once the counts of trees, contacts, patches and islands stop
  /// growing (the fixed cost per step of small problems).
  /// With a pool, the per-contact work (Delassus blocks, regularization)
  /// runs on its threads; the model is bitwise the same.
  void Build(const SapProblem& problem, const RegularizationParameters& reg,
             ThreadPool* pool = nullptr);

  /// Trees with at least this many velocities have their diagonal Hessian
  /// block assembled as one product over their contacts (see below).
  static constexpr int kWideTreeVelocities = 32;

  int num_trees() const { return static_cast<int>(tree_of_.size()); }
  int num_velocities() const { return num_velocities_; }
  int num_contacts() const { return static_cast<int>(contacts_.size()); }
  const std::vector<ModelContact>& contacts() const { return contacts_; }
  /// Limits, holonomic constraints and actuation, in that order (problem
  /// order within each), and their rows.
  int num_constraints() const { return static_cast<int>(constraints_.size()); }
  const std::vector<ModelConstraint>& constraints() const {
    return constraints_;
  }
  const std::vector<ConstraintRow>& rows() const { return rows_; }
  /// Delassus diagonal of each row [1/kg or 1/(kg m^2)].
  const std::vector<double>& row_delassus() const { return row_w_; }
  /// Size of the stacked constraint vectors, and where the rows start.
  int num_constraint_rows() const {
    return 3 * num_contacts() + static_cast<int>(rows_.size());
  }
  int row_offset() const { return 3 * num_contacts(); }
  const std::vector<Patch>& patches() const { return patches_; }
  const BlockSparsityPattern& pattern() const { return pattern_; }
  /// Islands, ordered by their smallest participating tree index.
  const std::vector<Island>& islands() const { return islands_; }
  /// Island of participating tree p, or -1 for a tree outside the graph
  /// (all its contacts inactive and no other constraint: v = v* solves it).
  int island_of_tree(int p) const { return island_of_tree_[p]; }

  /// Takes the contacts with active[k] == 0 (size num_contacts()) out of
  /// the graph: they join no patch, island or Hessian block, and trees left
  /// without an active contact or constraint leave the islands. Their
  /// regularization stays (contacts()), so that a caller can evaluate them
  /// (ContactVelocity) and bring them back with another call. Build() makes
  /// every contact active. A solver may leave out only contacts that carry
  /// no impulse at its solution (SapSolverParameters::
  /// exclude_separated_contacts): the problem is then unchanged.
  void SetActiveContacts(const std::vector<char>& active);
  bool contact_active(int k) const { return active_[k] != 0; }
  int num_active_contacts() const { return num_active_contacts_; }
  /// v_c = J_k v + b_k of contact k at the participating velocities v.
  Vector3 ContactVelocity(int k, const Eigen::VectorXd& v) const;
  /// Original tree index of participating tree p, its offset and size in the
  /// participating velocity vector.
  int original_tree(int p) const { return tree_of_[p]; }
  int offset(int p) const { return offsets_[p]; }
  int size(int p) const { return sizes_[p]; }
  /// Participating index of an original tree, or -1.
  int participating_index(int t) const { return participating_[t]; }

  /// v* of the participating trees, and D = diag(A)^-1/2.
  const Eigen::VectorXd& v_star() const { return v_star_; }
  const Eigen::VectorXd& scaling() const { return D_; }

  /// Participating part of a full (all trees) velocity vector, and back.
  void Gather(const Eigen::VectorXd& v_full, Eigen::VectorXd* v) const;
  void Scatter(const Eigen::VectorXd& v, Eigen::VectorXd* v_full) const;

  /// y = A x (block diagonal).
  void MultiplyA(const Eigen::VectorXd& x, Eigen::VectorXd* y) const;
  /// v_c = J v (stacked as above): the linear part; constraint velocities
  /// are J v + bias (AddBias).
  void MultiplyJ(const Eigen::VectorXd& v, Eigen::VectorXd* v_c) const;
  /// out = J' gamma.
  void MultiplyJTranspose(const Eigen::VectorXd& gamma,
                          Eigen::VectorXd* out) const;
  /// Evaluates every constraint at v_c: impulses gamma, Hessian blocks G (if
  /// not null) and the total constraint cost sum_k l_k [J].
  double EvaluateConstraints(const Eigen::VectorXd& v_c, Eigen::VectorXd* gamma,
                             ConstraintHessians* G) const;
  /// H = A + J' G J, written into H (which must have pattern()).
  void AssembleHessian(const ConstraintHessians& G,
                       BlockSparseSymmetricMatrix* H) const;

  /// v_c += the contacts' bias velocities (Contact::bias_velocity): with
  /// MultiplyJ, the constraint velocities at v.
  void AddBias(Eigen::VectorXd* v_c) const;
  void AddBias(const Island& island, Eigen::VectorXd* v_c) const;
  /// Whether any contact has a nonzero bias velocity.
  bool has_bias() const { return has_bias_; }

  /// The same operations restricted to one island: only the island's
  /// segments of y, v_c, out and gamma (and its entries of G and blocks of
  /// H) are written; the vectors must already have their full sizes.
  void MultiplyA(const Island& island, const Eigen::VectorXd& x,
                 Eigen::VectorXd* y) const;
  void MultiplyJ(const Island& island, const Eigen::VectorXd& v,
                 Eigen::VectorXd* v_c) const;
  void MultiplyJTranspose(const Island& island, const Eigen::VectorXd& gamma,
                          Eigen::VectorXd* out) const;
  /// With `regions` (size num_contacts()), also each contact's region of the
  /// friction-cone projection.
  double EvaluateConstraints(
      const Island& island, const Eigen::VectorXd& v_c, Eigen::VectorXd* gamma,
      ConstraintHessians* G,
      std::vector<ProjectionRegion>* regions = nullptr) const;
  void AssembleHessian(const Island& island, const ConstraintHessians& G,
                       BlockSparseSymmetricMatrix* H) const;

 private:
  // The phases of Build(), in order (sap_model.cc).
  void SelectTrees(const SapProblem& problem);
  void FactorTrees(const SapProblem& problem, ThreadPool* pool);
  void BuildContacts(const SapProblem& problem, ThreadPool* pool);
  void RegularizeContacts(const SapProblem& problem,
                          const RegularizationParameters& reg,
                          ThreadPool* pool);
  void BuildPattern();
  void BuildIslands();
  // body(k) for each contact k in [0, n), on the pool's threads when there
  // is one.
  template <class Body>
  static void ForEachContact(ThreadPool* pool, int n, const Body& body);
  // J A_p^-1 J' of the Jacobian block J (3 x n_p) of participating tree p.
  Matrix3 JAinvJt(const Eigen::MatrixXd& J, int p) const;
  // Row i of a constraint's block J (m x n_p): J_i A_p^-1 J_i'.
  double RowDelassus(const Eigen::MatrixXd& J, int p, int i) const;
  // The patch of trees (i, j), i > j (j = -1: with the world), created if
  // new.
  int PatchOf(int i, int j);

  const SapProblem* problem_{nullptr};
  // Per participating tree: its problem tree, offset in the model's v,
  // offset in the problem's stacked v, size; per problem tree: its
  // participating index or -1.
  std::vector<int> tree_of_, offsets_, full_offsets_, sizes_, participating_;
  int num_velocities_{0};
  bool has_bias_{false};
  std::vector<ModelContact> contacts_;
  // The supported Delassus estimate (docs/theory.md §19): each contact's two
  // sides' blocks J A^-1 J' (side 0: first tree, side 1: second or zero),
  // their scales, the patch of each contact, the heaviest view of each
  // patch side, and each tree's two heaviest neighbours (mass, patch).
  void ComputeSupportScales();
  std::vector<Matrix3> side_W_;
  std::vector<double> support_scale_, patch_mass_;
  std::vector<int> patch_of_contact_;
  std::vector<std::pair<double, int>> support_best_;
  std::vector<ModelConstraint> constraints_;
  std::vector<ConstraintRow> rows_;
  std::vector<double> row_w_;
  std::vector<Patch> patches_;
  BlockSparsityPattern pattern_;
  std::vector<Island> islands_;
  std::vector<int> island_of_tree_;
  // Index lists of patches and islands dropped by a Build(), kept with
  // their storage for the next one.
  std::vector<std::vector<int>> spare_lists_;
  std::vector<int> TakeList();
  void GiveList(std::vector<int>* list);
  // Build() workspaces: the first patch of each tree as tree_i and the
  // next patch with the same tree_i; the trees' A^-1 (free bodies, other
  // trees); the islands as disjoint sets of trees and the island of each
  // root.
  std::vector<int> patch_head_, patch_next_, island_of_root_;
  DisjointSets components_;
  // Per contact: in the graph (SetActiveContacts); per tree: has an active
  // contact or a constraint.
  std::vector<char> active_, in_graph_;
  int num_active_contacts_{0};
  std::vector<char> touched_;
  std::vector<Eigen::Matrix<double, 6, 6>> A_inv6_;
  std::vector<Eigen::LLT<Eigen::MatrixXd>> A_llt_;
  std::vector<std::pair<int, int>> off_diagonal_;
  Eigen::VectorXd v_star_, D_;
  // Trees of at least kWideTreeVelocities velocities (FCLib components,
  // large robots): their diagonal block sum_k J_k' G_k J_k is assembled as
  // one product J' (G J) of the stacked rows of their contacts (cache-blocked
  // matrix product, lower triangle only), not one rank-3 update per contact
  // (docs/theory.md §7).
  struct WideTree {
    std::vector<int> contacts;  ///< contacts on the tree, increasing
    Eigen::MatrixXd J;          ///< their 3 x n blocks stacked (3 m x n)
    /// Workspace: the rows J_k and G_k J_k of the contacts with G_k != 0.
    mutable Eigen::MatrixXd J_active, GJ;
  };
  void BuildWideTrees();
  void AddConstraints(const SapProblem& problem,
                      const RegularizationParameters& reg);
  int PatchOfTrees(int a, int b);
  void AssembleWideTree(int p, const std::vector<Matrix3>& G,
                        Eigen::MatrixXd* block) const;
  std::vector<WideTree> wide_trees_;
  std::vector<int> wide_of_tree_;  ///< participating index -> wide tree or -1
};

}  // namespace sapcontact
