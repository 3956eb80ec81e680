//! The statistics: the Elo difference with its error bar, and the sequential probability ratio
//! test that may end a match sooner (its verdicts also pooled over logs by `pool`).

/// The Elo difference for a score fraction, and its 95% error bar from the per-game results.
pub(crate) fn elo(results: &[f64]) -> (f64, f64) {
    let n = results.len() as f64;
    if n == 0.0 {
        return (0.0, 0.0);
    }
    let mean = results.iter().sum::<f64>() / n;
    let mut var = results.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / n;
    if var == 0.0 {
        // All results alike: take the spread of a score shrunk by half a game towards 50%.
        let p = (mean * n + 0.5) / (n + 1.0);
        var = p * (1.0 - p);
    }
    let to_elo = |s: f64| {
        let s = s.clamp(0.5 / n, 1.0 - 0.5 / n);
        -400.0 * (1.0 / s - 1.0).log10()
    };
    let margin = 1.96 * (var / n).sqrt();
    let e = to_elo(mean);
    (e, (to_elo(mean + margin) - to_elo(mean - margin)) / 2.0)
}

/// A sequential probability ratio test of "`a` is `elo1` stronger" against "`a` is `elo0`
/// stronger", as fishtest and `OpenBench` judge engine changes: logistic Elo, the game pairs' mean
/// scores as the samples (pentanomial), the normal approximation of the log-likelihood ratio.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    /// The chance of accepting `elo1` when `elo0` holds.
    pub alpha: f64,
    /// The chance of accepting `elo0` when `elo1` holds.
    pub beta: f64,
}

/// What a test says so far.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// `elo1` is accepted: the change gains.
    H1,
    /// `elo0` is accepted: it does not gain that much.
    H0,
    /// Neither bound is crossed yet.
    Continue,
}

/// The expected score of a side `elo` stronger.
fn expected(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

impl Sprt {
    /// The log-likelihood ratio of `elo1` against `elo0` for the pairs' mean scores (each 0,
    /// ¼, ½, ¾ or 1), in the normal approximation: N (s1 − s0)(2m − s0 − s1) / 2σ². Two
    /// imaginary pairs, one at ¼ and one at ¾, join the real ones: a prior that keeps the spread
    /// above zero when every pair so far ended alike (a sweep still decides, a few games later).
    pub fn llr(&self, pairs: &[f64]) -> f64 {
        if pairs.is_empty() {
            return 0.0;
        }
        let samples = pairs.iter().chain(&[0.25, 0.75]);
        let n = pairs.len() as f64 + 2.0;
        let mean = samples.clone().sum::<f64>() / n;
        let var = samples.map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        let (s0, s1) = (expected(self.elo0), expected(self.elo1));
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    /// The bounds: accept `elo0` below the first, `elo1` above the second.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    pub fn verdict(&self, pairs: &[f64]) -> Verdict {
        let llr = self.llr(pairs);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Verdict::H1
        } else if llr <= lower {
            Verdict::H0
        } else {
            Verdict::Continue
        }
    }
}

/// `ELO0,ELO1` or `ELO0 ELO1`.
impl std::str::FromStr for Sprt {
    type Err = String;
    fn from_str(s: &str) -> Result<Sprt, String> {
        let parts: Vec<&str> = s.split([',', ' ']).filter(|p| !p.is_empty()).collect();
        let [e0, e1] = parts[..] else {
            return Err(format!(
                "--sprt takes ELO0,ELO1 (for example 0,10), not '{}'",
                khet_engine::text::quote(s)
            ));
        };
        let num = |t: &str| {
            t.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && v.abs() <= 2000.0)
                .ok_or_else(|| format!("'{}' is not an Elo", khet_engine::text::quote(t)))
        };
        let (elo0, elo1) = (num(e0)?, num(e1)?);
        if elo1 <= elo0 {
            return Err(format!("--sprt needs ELO0 < ELO1, not {elo0} and {elo1}"));
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_accepts_what_the_pairs_show() {
        let test: Sprt = "0,10".parse().unwrap();
        let (lower, upper) = test.bounds();
        assert!((upper - 2.944).abs() < 0.001 && (lower + 2.944).abs() < 0.001);
        // Fifty pairs won and fifty halved: a score of 75 %, far above both hypotheses.
        let strong: Vec<f64> = (0..100)
            .map(|i| if i % 2 == 0 { 1.0 } else { 0.5 })
            .collect();
        let llr = test.llr(&strong);
        // With the prior's two pairs: 102 samples, mean 76/102, the spread about it.
        let mean: f64 = 76.0 / 102.0;
        let var = (50.0 * (1.0 - mean).powi(2)
            + 50.0 * (0.5 - mean).powi(2)
            + (0.25 - mean).powi(2)
            + (0.75 - mean).powi(2))
            / 102.0;
        let (s0, s1) = (expected(0.0), expected(10.0));
        let want = 102.0 * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var);
        assert!((llr - want).abs() < 1e-9, "{llr} {want}");
        assert_eq!(test.verdict(&strong), Verdict::H1);
        // Even results, spread both ways: evidence for no gain.
        let even: Vec<f64> = (0..2000).map(|i| [0.25, 0.75][i % 2]).collect();
        assert_eq!(test.verdict(&even), Verdict::H0);
        // A few pairs decide nothing; a sweep decides, however alike its pairs.
        assert_eq!(test.verdict(&strong[..4]), Verdict::Continue);
        let sweep: Sprt = "0,200".parse().unwrap();
        assert_eq!(sweep.verdict(&[1.0; 3]), Verdict::Continue);
        assert_eq!(sweep.verdict(&[1.0; 12]), Verdict::H1);
    }

    #[test]
    fn the_test_is_read_from_its_bounds() {
        assert_eq!(
            "-5, 5".parse::<Sprt>().map(|t| (t.elo0, t.elo1)),
            Ok((-5.0, 5.0))
        );
        assert!("10,0".parse::<Sprt>().unwrap_err().contains("ELO0 < ELO1"));
        assert!("0".parse::<Sprt>().unwrap_err().contains("ELO0,ELO1"));
        assert!("0,x".parse::<Sprt>().unwrap_err().contains("not an Elo"));
        assert!("0,NaN".parse::<Sprt>().is_err());
    }
}
