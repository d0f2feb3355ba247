//! `VectorClock` against the definition: a clock is a map from threads to numbers, zero where
//! never set; `join` (and `join_components`, from a dense copy) is the pointwise maximum,
//! `copy_from` a copy, `leq` the pointwise order (after every operation: the trees share nodes
//! in every way the operations make them, and `leq` reads only the nodes they do not share).
//! Random operations on a few clocks, over thread ids on both sides of the dense prefix and deep
//! enough into the tree to give it several levels, each clock compared with a plain map after
//! every operation, some of them keeping their dense prefix in the tree (`share_dense`).

use hindsight_order::clock::DENSE;
use hindsight_order::VectorClock;
use hindsight_trace::ThreadId;
use proptest::prelude::*;
use std::collections::BTreeMap;

type Model = BTreeMap<u32, u32>;

fn model_get(m: &Model, t: u32) -> u32 {
    m.get(&t).copied().unwrap_or(0)
}

fn model_set(m: &mut Model, t: u32, v: u32) {
    if v == 0 {
        m.remove(&t);
    } else {
        m.insert(t, v);
    }
}

#[derive(Clone, Debug)]
enum Step {
    Set(usize, u32, u32),
    Increment(usize, u32),
    Join(usize, usize),
    Copy(usize, usize),
    /// Joins the dense components of one clock into another (`join_components`).
    JoinComponents(usize, usize),
    ShareDense(usize),
}

/// Thread ids: a few low ones, a cluster just past the dense prefix, and some far out (height
/// two and three of the tree), some of them at the cluster's slots of a higher level.
fn thread() -> impl Strategy<Value = u32> {
    let dense = DENSE as u32;
    prop_oneof![
        0..8u32,
        dense - 2..dense + 40,
        dense + 200..dense + 300,
        prop::sample::select(vec![dense + 4095, dense + 4096, dense + 70_000]),
        // The same slots as the cluster above, a tree level or two higher: where a higher
        // tree's node meets a lower tree's at one place in their leaves.
        (
            prop::sample::select(vec![256u32, 4096, 65536]),
            dense - 2..dense + 8
        )
            .prop_map(|(level, t)| level + t),
    ]
}

fn step(clocks: usize) -> impl Strategy<Value = Step> {
    prop_oneof![
        (0..clocks, thread(), 0..6u32).prop_map(|(c, t, v)| Step::Set(c, t, v)),
        (0..clocks, thread()).prop_map(|(c, t)| Step::Increment(c, t)),
        (0..clocks, 0..clocks).prop_map(|(a, b)| Step::Join(a, b)),
        (0..clocks, 0..clocks).prop_map(|(a, b)| Step::Copy(a, b)),
        (0..clocks, 0..clocks).prop_map(|(a, b)| Step::JoinComponents(a, b)),
        (0..clocks).prop_map(Step::ShareDense),
    ]
}

fn check(
    clock: &VectorClock,
    model: &Model,
    probes: &[u32],
    dense_too: bool,
) -> Result<(), TestCaseError> {
    for &t in probes {
        prop_assert_eq!(clock.get(ThreadId(t)), model_get(model, t), "thread {}", t);
    }
    let mut seen = Vec::new();
    clock.for_each_nonzero(|t, v| seen.push((t.0, v)));
    let expected: Vec<(u32, u32)> = model.iter().map(|(&t, &v)| (t, v)).collect();
    prop_assert_eq!(seen, expected);
    if !dense_too {
        return Ok(());
    }
    // The dense copy: as long as the last component that is not zero, equal to the map.
    let dense = clock.components();
    let last = model.keys().next_back().map_or(0, |&t| t as usize + 1);
    prop_assert!(dense.len() >= last);
    prop_assert_eq!(dense.iter().filter(|&&v| v != 0).count(), model.len());
    for (&t, &v) in model {
        prop_assert_eq!(dense[t as usize], v);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn clocks_behave_as_maps(steps in prop::collection::vec(step(4), 0..80)) {
        let mut clocks = vec![VectorClock::new(); 4];
        let mut models = vec![Model::new(); 4];
        let mut probes: Vec<u32> = vec![0, 1, DENSE as u32 - 1, DENSE as u32, DENSE as u32 + 17];
        for s in &steps {
            match *s {
                Step::Set(c, t, v) => {
                    clocks[c].set(ThreadId(t), v);
                    model_set(&mut models[c], t, v);
                    probes.push(t);
                }
                Step::Increment(c, t) => {
                    clocks[c].increment(ThreadId(t));
                    let v = model_get(&models[c], t) + 1;
                    model_set(&mut models[c], t, v);
                    probes.push(t);
                }
                Step::Join(a, b) => {
                    let other = clocks[b].clone();
                    clocks[a].join(&other);
                    let theirs = models[b].clone();
                    for (t, v) in theirs {
                        let mine = model_get(&models[a], t);
                        model_set(&mut models[a], t, mine.max(v));
                    }
                }
                Step::JoinComponents(a, b) => {
                    let other = clocks[b].components();
                    clocks[a].join_components(&other);
                    let theirs = models[b].clone();
                    for (t, v) in theirs {
                        let mine = model_get(&models[a], t);
                        model_set(&mut models[a], t, mine.max(v));
                    }
                }
                Step::Copy(a, b) => {
                    let other = clocks[b].clone();
                    clocks[a].copy_from(&other);
                    models[a] = models[b].clone();
                }
                // A change of representation: the components stay what they were.
                Step::ShareDense(c) => clocks[c].share_dense(),
            }
            for c in 0..clocks.len() {
                check(&clocks[c], &models[c], &probes, false)?;
            }
            // The order, compared node by node where the clocks share their trees.
            for a in 0..clocks.len() {
                for b in 0..clocks.len() {
                    let leq = models[a].iter().all(|(&t, &v)| v <= model_get(&models[b], t));
                    prop_assert_eq!(clocks[a].leq(&clocks[b]), leq, "{} ⊑ {}", a, b);
                    // Above `a` but for one component: `a` is not below it, however little
                    // the one component's leaf differs from `a`'s in a tree they share.
                    let mut above = clocks[b].clone();
                    above.join(&clocks[a]);
                    prop_assert!(clocks[a].leq(&above));
                    for (&t, &v) in &models[a] {
                        let mut short = above.clone();
                        short.set(ThreadId(t), v - 1);
                        prop_assert!(!clocks[a].leq(&short), "{} ⊑ {} short at {}", a, b, t);
                    }
                }
            }
        }
        for c in 0..clocks.len() {
            check(&clocks[c], &models[c], &probes, true)?;
        }
        for a in 0..clocks.len() {
            for b in 0..clocks.len() {
                let leq = models[a].iter().all(|(&t, &v)| v <= model_get(&models[b], t));
                prop_assert_eq!(clocks[a].leq(&clocks[b]), leq);
                prop_assert_eq!(clocks[a] == clocks[b], models[a] == models[b]);
            }
        }
    }
}

/// A clock whose tree is higher than the other's: its components past the other's tree are
/// held against zero, never against the other's components at the same slots of its first
/// subtree (a higher tree holds a lower one's there).
#[test]
fn a_higher_tree_is_not_read_from_the_lower_ones_slots() {
    let dense = DENSE as u32;
    for low in [0, 5, dense + 6] {
        for level in [256u32, 4096, 65536, 1 << 20] {
            let high = low + level;
            // Enough components that they go into the tree rather than wait beside it (17:
            // none left waiting).
            let mut far = VectorClock::new();
            for t in high..high + 17 {
                far.set(ThreadId(t), 1);
            }
            let mut near = VectorClock::new();
            for t in low..low + 40 {
                near.set(ThreadId(t), 5);
            }
            for shared in [false, true] {
                if shared {
                    far.share_dense();
                    near.share_dense();
                }
                assert!(!far.leq(&near), "{high} against {low}");
                assert!(!near.leq(&far), "{low} against {high}");
                let mut both = near.clone();
                both.join(&far);
                assert!(far.leq(&both) && near.leq(&both));
                let mut short = VectorClock::new();
                short.set(ThreadId(high + 3), 1);
                short.join(&near);
                assert!(short.leq(&both) && !short.leq(&near) && !far.leq(&short));
            }
        }
    }
}
