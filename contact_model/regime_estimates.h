// Analytic estimates of contact behaviour in the SAP model (SAP paper §V-B;
// docs/theory.md §9): the
// oracles against which simulations and parameter studies are checked.
// SI units; g is the magnitude of gravity [m/s^2].
#pragma once

namespace sapcontact {

/// Resting penetration [m] of a body of mass m [kg] carried by n equal
/// contacts with normal regularization R_n [1/kg]. At rest v_c = 0,
/// so gamma_n = y_n = v_hat_n / R_n = -phi / ((dt + tau_d) R_n) and the
/// contacts carry the weight, n gamma_n = m g dt:
///   -phi = (m g / n) dt (dt + tau_d) R_n.
double RestingPenetration(double mass, double g, int n, double dt, double tau_d,
                          double R_n);

/// Compliant regime of RestingPenetration(): R_n = 1/(dt k (dt + tau_d))
/// gives the static spring deflection m g / (n k) [m].
double CompliantRestingPenetration(double mass, double g, int n,
                                   double stiffness);

/// Near-rigid floor of RestingPenetration(), with
/// R_n = beta^2 w / (4 pi^2) and w the Delassus estimate [1/kg] of each
/// contact: (m g / n) dt (dt + tau_d) beta^2 w / (4 pi^2) [m].
/// Point mass, one contact, tau_d = 0, beta = 1: w = 1/(sqrt(3) m) gives
/// g dt^2 / (4 pi^2 sqrt(3)) = 1.43e-7 m at dt = 1e-3 s. (The paper's
/// 2.5e-7 m takes w = 1/m; docs/theory.md §14.)
double NearRigidRestingPenetration(double mass, double g, int n, double dt,
                                   double tau_d, double beta, double w);

/// Slip velocity during stiction [m/s]: v_s = R_t |gamma_t|, with
/// |gamma_t| the friction impulse magnitude [N*s].
double StictionSlipVelocity(double R_t, double friction_impulse);

/// Upper bound on the stiction slip velocity of a point mass [m/s] (SAP paper
/// Eq. (31)): with |gamma_t| <= mu m g dt and R_t = sigma w <= sigma / m (w =
/// 1/(sqrt(3) m) for a point mass), v_s <= sigma mu g dt.
double PointMassStictionSlipBound(double sigma, double mu, double g, double dt);

/// Upper bound of R_t / R_n [-]: R_t = sigma w and
/// R_n >= beta^2 w / (4 pi^2) give R_t / R_n <= 4 pi^2 sigma / beta^2
/// (0.039 for beta = 1, sigma = 1e-3). Infinite for beta = 0.
double MaxTangentialToNormalRegularizationRatio(double beta, double sigma);

/// Stiffness [N/m] at which the compliant and near-rigid terms of R_n are
/// equal, k dt (dt + tau_d) beta^2 w = 4 pi^2: stiffer contacts are at the
/// near-rigid floor.
double NearRigidCrossoverStiffness(double dt, double tau_d, double beta,
                                   double w);

}  // namespace sapcontact
