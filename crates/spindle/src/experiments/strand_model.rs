//! The birthday-paradox model of proximal strands (proximal I/O paper, Appendix A;
//! catalog PROX-APPA-model).
//!
//! The track circle is cut into `b` equal bins, each as wide as the time the head needs
//! to get from one request to the next on another track. A strand's `D` requests land in
//! independent, uniformly random bins; two requests in one bin cannot both be served in
//! the same revolution, so the strand needs as many revolutions as the fullest bin holds
//! (the *max load* of `D` balls in `b` bins). With an initial seek `s` and half a
//! revolution of initial rotational latency on average, a strand takes
//!
//! ```text
//!     T = s + T_rev · (½ + k)    with probability Q_k = P(max load = k),
//!     E\[Revs\] = ½ + E\[max load\].
//! ```
//!
//! The paper prints the MathWorld recurrence for `Q_k` in a garbled form; we compute the
//! exact max-load distribution instead, by a dynamic program over the bins (each bin takes
//! a binomial share of the balls still unplaced), which is exact and numerically stable
//! for any `D` and `b`.
//!
//! Bins: `B = SPT / H` with `H = SPT · t_switch / T_rev` the sectors passing under the
//! head during the switch, so `B = T_rev / t_switch`; the model uses `b = ⌊B⌋`. The
//! paper's Cheetah inputs (SPT 1200, 0.475 ms, 4 ms) give H = 142 and B = 8.45, b = 8,
//! but every number the appendix states reproduces only with b = 6 (catalog ambiguity
//! P3), so `b` can be overridden.

use serde::Serialize;

/// The model's inputs. Times in ms.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ModelInputs {
    /// Sectors per track (SPT).
    pub spt: u32,
    /// Revolution time T_rev.
    pub rev_ms: f64,
    /// Time to get from one request to the next on another track (the paper's track
    /// switch time; for a simulated drive, its minimal repositioning time per request).
    pub switch_ms: f64,
    /// Initial average seek added to every strand.
    pub initial_seek_ms: f64,
    /// Use this many bins instead of ⌊B⌋.
    pub bins_override: Option<u32>,
}

impl ModelInputs {
    /// The paper's Cheetah 15K.5 inputs (App. A): SPT 1200, track switch 0.475 ms, 4 ms
    /// per revolution, 3.5 ms initial seek; bins from ⌊B⌋.
    pub fn paper_cheetah() -> ModelInputs {
        ModelInputs {
            spt: 1200,
            rev_ms: 4.0,
            switch_ms: 0.475,
            initial_seek_ms: 3.5,
            bins_override: None,
        }
    }

    /// The same inputs with `b` bins.
    pub fn with_bins(self, b: u32) -> ModelInputs {
        ModelInputs {
            bins_override: Some(b),
            ..self
        }
    }

    /// H: whole sectors passing under the head during the switch (the paper's
    /// `SPT × 0.475/4 = 142`, rounded down; 1e-9 of slack so that float noise in an exact
    /// product does not lose a sector).
    pub fn h_sectors(&self) -> u32 {
        (self.spt as f64 * self.switch_ms / self.rev_ms + 1e-9).floor() as u32
    }

    /// B = SPT / H (8.45 for the paper's Cheetah). Infinite when H = 0.
    pub fn bins_exact(&self) -> f64 {
        self.spt as f64 / self.h_sectors() as f64
    }

    /// The bin count the model uses: the override, else ⌊B⌋ (at least 1).
    pub fn bins(&self) -> u32 {
        match self.bins_override {
            Some(b) => b.max(1),
            None => {
                let b = self.bins_exact();
                if b.is_finite() {
                    (b.floor() as u32).max(1)
                } else {
                    self.spt.max(1)
                }
            }
        }
    }
}

/// `P(max load ≤ m)` for `d` balls thrown independently and uniformly into `b` bins.
///
/// Dynamic program over the bins: with `r` balls still to place and `k` bins left, the
/// next bin receives `j` of them with the binomial probability `C(r,j) (1/k)^j
/// (1-1/k)^(r-j)`; only `j ≤ m` is allowed.
pub fn max_load_cdf(d: u32, b: u32, m: u32) -> f64 {
    if d == 0 {
        return 1.0;
    }
    if b == 0 {
        return 0.0;
    }
    if m >= d {
        return 1.0;
    }
    let d = d as usize;
    let m = m as usize;
    let lf = ln_factorials(d);
    // prob[r] = probability that r balls remain unplaced and every bin so far holds ≤ m.
    let mut prob = vec![0.0f64; d + 1];
    prob[d] = 1.0;
    let mut next = vec![0.0f64; d + 1];
    for k in (1..=b).rev() {
        next.iter_mut().for_each(|x| *x = 0.0);
        let (lp, lq) = ((1.0 / k as f64).ln(), (1.0 - 1.0 / k as f64).ln());
        for (r, &pr) in prob.iter().enumerate() {
            if pr == 0.0 {
                continue;
            }
            if k == 1 {
                // The last bin takes every remaining ball.
                if r <= m {
                    next[0] += pr;
                }
                continue;
            }
            for j in 0..=r.min(m) {
                // C(r,j) (1/k)^j (1-1/k)^(r-j), in logs.
                let ln = lf[r] - lf[j] - lf[r - j] + j as f64 * lp + (r - j) as f64 * lq;
                next[r - j] += pr * ln.exp();
            }
        }
        std::mem::swap(&mut prob, &mut next);
    }
    prob[0]
}

/// ln(n!) for n = 0..=max.
fn ln_factorials(max: usize) -> Vec<f64> {
    let mut v = Vec::with_capacity(max + 1);
    let mut acc = 0.0;
    v.push(0.0);
    for i in 1..=max {
        acc += (i as f64).ln();
        v.push(acc);
    }
    v
}

/// The exact max-load distribution of `d` balls in `b` bins and the numbers the
/// appendix derives from it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MaxLoad {
    pub d: u32,
    pub b: u32,
    /// `pmf[k]` = Q_k = P(max load = k), for k = 0..=d (`pmf[0]` is 1 only when d = 0).
    pub pmf: Vec<f64>,
}

impl MaxLoad {
    pub fn new(d: u32, b: u32) -> MaxLoad {
        let mut pmf = Vec::with_capacity(d as usize + 1);
        let mut prev = 0.0;
        for m in 0..=d {
            // Past the point where the CDF is 1 to double precision the rest is 0; stop
            // there (the DP costs O(b·D·m) per m).
            let c = if 1.0 - prev < 1e-16 {
                1.0
            } else {
                max_load_cdf(d, b, m)
            };
            pmf.push((c - prev).max(0.0));
            prev = c;
        }
        MaxLoad { d, b, pmf }
    }

    /// Q_k: probability the strand needs exactly k revolutions (max load k).
    pub fn q(&self, k: u32) -> f64 {
        self.pmf.get(k as usize).copied().unwrap_or(0.0)
    }

    /// P_k = 1 − Σ_{i≤k} Q_i: probability of at least k extra revolutions (max load > k).
    pub fn p(&self, k: u32) -> f64 {
        (1.0 - (0..=k).map(|i| self.q(i)).sum::<f64>()).max(0.0)
    }

    /// E\[max load\].
    pub fn mean(&self) -> f64 {
        self.pmf.iter().enumerate().map(|(k, q)| k as f64 * q).sum()
    }

    /// Var[max load] (rev²).
    pub fn variance(&self) -> f64 {
        let m = self.mean();
        self.pmf
            .iter()
            .enumerate()
            .map(|(k, q)| (k as f64 - m).powi(2) * q)
            .sum()
    }

    /// The most likely max load (smallest on ties).
    pub fn mode(&self) -> u32 {
        let mut best = (0, f64::MIN);
        for (k, &q) in self.pmf.iter().enumerate() {
            if q > best.1 {
                best = (k as u32, q);
            }
        }
        best.0
    }

    /// E\[Revs\] = ½ + E\[max load\].
    pub fn expected_revs(&self) -> f64 {
        0.5 + self.mean()
    }

    /// Revolutions per request, E\[Revs\] / D.
    pub fn revs_per_request(&self) -> f64 {
        self.expected_revs() / self.d.max(1) as f64
    }
}

/// The model's prediction for one strand size on one set of inputs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StrandModel {
    pub inputs: ModelInputs,
    pub load: MaxLoad,
}

impl StrandModel {
    pub fn new(inputs: ModelInputs, d: u32) -> StrandModel {
        StrandModel {
            inputs,
            load: MaxLoad::new(d, inputs.bins()),
        }
    }

    /// Strand time (ms) when the fullest bin holds `k`: s + T_rev·(½ + k).
    pub fn strand_ms(&self, k: u32) -> f64 {
        self.inputs.initial_seek_ms + self.inputs.rev_ms * (0.5 + k as f64)
    }

    /// Mean strand time, ms.
    pub fn mean_ms(&self) -> f64 {
        self.inputs.initial_seek_ms + self.inputs.rev_ms * self.load.expected_revs()
    }

    /// Strand-time variance, ms² (T_rev² · Var[max load]).
    pub fn variance_ms2(&self) -> f64 {
        self.inputs.rev_ms.powi(2) * self.load.variance()
    }

    /// Mean per-request service time, ms.
    pub fn per_request_ms(&self) -> f64 {
        self.mean_ms() / self.load.d.max(1) as f64
    }

    /// The strand-time distribution: (time ms, probability) for every possible k.
    pub fn distribution(&self) -> Vec<(f64, f64)> {
        (1..=self.load.d)
            .map(|k| (self.strand_ms(k), self.load.q(k)))
            .filter(|&(_, q)| q > 0.0)
            .collect()
    }

    /// The CDF of strand time as step points (time ms, P(T ≤ time)).
    pub fn cdf(&self) -> Vec<(f64, f64)> {
        let mut acc = 0.0;
        self.distribution()
            .into_iter()
            .map(|(t, q)| {
                acc += q;
                (t, acc.min(1.0))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn paper_inputs_give_h_142_and_b_8() {
        let m = ModelInputs::paper_cheetah();
        assert_eq!(m.h_sectors(), 142);
        assert!(close(m.bins_exact(), 8.45, 0.005), "{}", m.bins_exact());
        assert_eq!(m.bins(), 8);
        assert_eq!(m.with_bins(6).bins(), 6);
    }

    /// The catalog's derived table (PROX-APPA-model).
    #[test]
    fn catalog_table() {
        // b, D, P(max=1), E[max], E\[Revs\], per request, Var, mode
        type Row = (u32, u32, f64, f64, f64, f64, f64, u32);
        let rows: [Row; 6] = [
            (6, 6, 0.0154, 2.408, 2.908, 0.485, 0.394, 2),
            (6, 8, 0.0, 2.921, 3.421, 0.428, 0.567, 3),
            (7, 8, 0.0, 2.736, 3.236, 0.405, 0.518, 3),
            (8, 6, 0.0769, 2.179, 2.679, 0.447, 0.354, 2),
            (8, 8, 0.0024, 2.597, 3.097, 0.387, 0.469, 2),
            (9, 8, 0.0084, 2.488, 2.988, 0.374, 0.427, 2),
        ];
        for (b, d, p1, emax, erevs, per, var, mode) in rows {
            let l = MaxLoad::new(d, b);
            let tag = format!("b={b} D={d}");
            assert!(close(l.q(1), p1, 0.00006), "{tag} P1 {}", l.q(1));
            assert!(close(l.mean(), emax, 0.0006), "{tag} E {}", l.mean());
            assert!(close(l.expected_revs(), erevs, 0.0006), "{tag}");
            assert!(close(l.revs_per_request(), per, 0.0006), "{tag}");
            assert!(close(l.variance(), var, 0.0006), "{tag} V {}", l.variance());
            assert_eq!(l.mode(), mode, "{tag}");
            assert!(close(l.pmf.iter().sum::<f64>(), 1.0, 1e-12));
        }
        // Exact birthday probability for b = D = 8: 8!/8^8.
        let l = MaxLoad::new(8, 8);
        assert!(close(l.q(1), 40320.0 / 16_777_216.0, 1e-15));
        assert!(close(l.p(1), 1.0 - l.q(1), 1e-15));
    }

    #[test]
    fn catalog_pmfs() {
        let l = MaxLoad::new(8, 6);
        for (k, q) in [(2, 0.293), (3, 0.524), (4, 0.156), (5, 0.025), (6, 0.0025)] {
            assert!(close(l.q(k), q, 0.0006), "b=6 k={k}: {}", l.q(k));
        }
        let l = MaxLoad::new(8, 8);
        for (k, q) in [(1, 0.0024), (2, 0.498), (3, 0.409), (4, 0.080), (5, 0.009)] {
            assert!(close(l.q(k), q, 0.0006), "b=8 k={k}: {}", l.q(k));
        }
    }

    #[test]
    fn strand_times_for_the_paper() {
        let m = StrandModel::new(ModelInputs::paper_cheetah().with_bins(6), 8);
        assert!(close(m.mean_ms(), 17.18, 0.01), "{}", m.mean_ms());
        assert!(close(m.variance_ms2(), 9.07, 0.01), "{}", m.variance_ms2());
        let d: Vec<f64> = m.distribution().iter().map(|x| x.0).collect();
        assert_eq!(&d[..4], &[13.5, 17.5, 21.5, 25.5]);
        assert!(close(m.cdf().last().unwrap().1, 1.0, 1e-12));
    }

    #[test]
    fn edge_cases() {
        // One bin: everything collides.
        let l = MaxLoad::new(5, 1);
        assert!(close(l.q(5), 1.0, 1e-12));
        // One ball.
        let l = MaxLoad::new(1, 7);
        assert!(close(l.q(1), 1.0, 1e-12));
        // No balls.
        assert_eq!(MaxLoad::new(0, 4).mean(), 0.0);
        // Large strands stay finite and normalised.
        let l = MaxLoad::new(200, 50);
        assert!(close(l.pmf.iter().sum::<f64>(), 1.0, 1e-9));
        assert!(l.mean() > 4.0 && l.mean() < 20.0);
    }

    /// The DP agrees with a Monte Carlo of the balls-in-bins experiment.
    #[test]
    fn dp_matches_monte_carlo() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for (d, b) in [(8u32, 6u32), (8, 8), (12, 5), (3, 10)] {
            let trials = 200_000;
            let mut counts = vec![0u64; d as usize + 1];
            for _ in 0..trials {
                let mut bins = vec![0u32; b as usize];
                for _ in 0..d {
                    bins[rng.gen_range(0..b as usize)] += 1;
                }
                counts[*bins.iter().max().unwrap() as usize] += 1;
            }
            let l = MaxLoad::new(d, b);
            for k in 0..=d {
                let mc = counts[k as usize] as f64 / trials as f64;
                assert!(
                    close(mc, l.q(k), 0.005),
                    "d={d} b={b} k={k}: {mc} vs {}",
                    l.q(k)
                );
            }
        }
    }
}
