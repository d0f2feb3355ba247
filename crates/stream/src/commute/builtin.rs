//! The specs shipped with hindsight, by name: `map` (the dictionary of Fig. 6), `set`,
//! `register` and `counter`. Each is one object, sound (its formulas hold only of actions that
//! commute, Definition 4.2) and in ECL; the files say why, rule by rule.

/// The names of the shipped specs.
pub const BUILTINS: &[&str] = &["map", "set", "register", "counter"];

/// The text of the shipped spec `name`, if there is one.
pub fn builtin(name: &str) -> Option<&'static str> {
    match name {
        "map" => Some(include_str!("../../specs/map.spec")),
        "set" => Some(include_str!("../../specs/set.spec")),
        "register" => Some(include_str!("../../specs/register.spec")),
        "counter" => Some(include_str!("../../specs/counter.spec")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commute::ecl::{classify_named, EclClass};
    use crate::commute::spec::{parse, Formula, ObjectSpec, Val};
    use std::fmt::Debug;

    /// An action: method name, then arguments and results.
    type Action = (&'static str, Vec<Val<'static>>);

    fn spec(name: &str) -> ObjectSpec {
        let file = parse(builtin(name).expect("shipped")).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(file.objects.len(), 1, "{name}: one object");
        file.objects.into_iter().next().expect("one object")
    }

    /// Every combination of one value from each domain.
    fn product(domains: &[Vec<Val<'static>>]) -> Vec<Vec<Val<'static>>> {
        domains.iter().fold(vec![Vec::new()], |acc, d| {
            acc.iter()
                .flat_map(|prefix| {
                    d.iter().map(move |v| {
                        let mut p = prefix.clone();
                        p.push(*v);
                        p
                    })
                })
                .collect()
        })
    }

    fn actions(method: &'static str, domains: &[Vec<Val<'static>>]) -> Vec<Action> {
        product(domains).into_iter().map(|p| (method, p)).collect()
    }

    fn ints(r: std::ops::RangeInclusive<i64>) -> Vec<Val<'static>> {
        r.map(Val::Int).collect()
    }

    fn int(v: Val<'_>) -> i64 {
        match v {
            Val::Int(i) => i,
            _ => panic!("not an int: {v:?}"),
        }
    }

    fn boolean(b: bool) -> Val<'static> {
        Val::Sym(if b { "true" } else { "false" })
    }

    fn booleans() -> Vec<Val<'static>> {
        vec![boolean(false), boolean(true)]
    }

    /// The first violation of Definition 4.2 by a rule of `spec` on a model: two actions the
    /// rule's formula says commute, and a state on which applying them in either order differs
    /// (one order defined and not the other, or both defined with different results). `apply`
    /// is the effect of an action on a state, `None` where it is undefined (where its recorded
    /// results are not what the method returns). Also checks that the model exercises every
    /// rule, and that every satisfiable rule holds of some pair of actions of the model.
    fn violation<S: Clone + PartialEq + Debug>(
        spec: &ObjectSpec,
        states: &[S],
        actions: &[Action],
        apply: impl Fn(&S, &str, &[Val<'static>]) -> Option<S>,
    ) -> Result<(), String> {
        for rule in &spec.rules {
            let (m1, m2) = (&spec.methods[rule.first], &spec.methods[rule.second]);
            let what = format!("{}: commute {}, {}", spec.name, m1.name, m2.name);
            let (mut pairs, mut commuting) = (0, 0);
            for a in actions.iter().filter(|a| a.0 == m1.name) {
                assert_eq!(a.1.len(), m1.params.len(), "{what}: {a:?}");
                for b in actions.iter().filter(|b| b.0 == m2.name) {
                    assert_eq!(b.1.len(), m2.params.len(), "{what}: {b:?}");
                    pairs += 1;
                    if !rule.formula.eval(&a.1, &b.1) {
                        continue;
                    }
                    commuting += 1;
                    for s in states {
                        let ab = apply(s, a.0, &a.1).and_then(|t| apply(&t, b.0, &b.1));
                        let ba = apply(s, b.0, &b.1).and_then(|t| apply(&t, a.0, &a.1));
                        if ab != ba {
                            return Err(format!(
                                "{what}: {a:?} and {b:?} are said to commute, but on {s:?} \
                                 one order gives {ab:?} and the other {ba:?}"
                            ));
                        }
                    }
                }
            }
            assert!(
                pairs > 0,
                "{what}: the model has no actions of these methods"
            );
            if rule.formula != Formula::False {
                assert!(commuting > 0, "{what}: never holds on the model");
            }
        }
        Ok(())
    }

    /// Every pair of methods has a rule, in ECL.
    fn check_complete(spec: &ObjectSpec) {
        let n = spec.methods.len();
        for a in 0..n {
            for b in a..n {
                assert!(
                    spec.rule(a, b).is_some(),
                    "{}: no rule for {a}, {b}",
                    spec.name
                );
            }
        }
        for r in &spec.rules {
            if let Err(e) = classify_named(&r.formula, &r.names) {
                panic!("{}: {e}", spec.name);
            }
        }
    }

    /// `spec` with the formula of the rule for methods `a` and `b` replaced by `true`.
    fn weakened(spec: &ObjectSpec, a: &str, b: &str) -> ObjectSpec {
        let mut spec = spec.clone();
        let (a, b) = (spec.method(a).unwrap(), spec.method(b).unwrap());
        let rule = spec
            .rules
            .iter_mut()
            .find(|r| (r.first, r.second) == (a, b) || (r.first, r.second) == (b, a))
            .unwrap();
        rule.formula = Formula::True;
        spec
    }

    #[test]
    fn every_builtin_parses_is_complete_and_in_ecl() {
        for name in BUILTINS {
            check_complete(&spec(name));
        }
        assert_eq!(builtin("nope"), None);
        let map = spec("map");
        let classes: Vec<EclClass> = map
            .rules
            .iter()
            .map(|r| classify_named(&r.formula, &r.names).unwrap())
            .collect();
        use EclClass::*;
        assert_eq!(classes, [X, X, B, B, B, B]);
    }

    fn map_model(spec: &ObjectSpec) -> Result<(), String> {
        // Keys 1 and 2, values nil, 1, 2: a state is the value of each key.
        let vals = vec![Val::Nil, Val::Int(1), Val::Int(2)];
        let states: Vec<[Val<'static>; 2]> = product(&[vals.clone(), vals.clone()])
            .into_iter()
            .map(|p| [p[0], p[1]])
            .collect();
        let keys = ints(1..=2);
        let mut acts = actions("put", &[keys.clone(), vals.clone(), vals.clone()]);
        acts.extend(actions("get", &[keys, vals]));
        acts.extend(actions("size", &[ints(0..=3)]));
        violation(spec, &states, &acts, |s, m, p| {
            let mut t = *s;
            match m {
                "put" => {
                    let k = int(p[0]) as usize - 1;
                    (s[k] == p[2]).then(|| {
                        t[k] = p[1];
                        t
                    })
                }
                "get" => (s[int(p[0]) as usize - 1] == p[1]).then_some(t),
                "size" => {
                    let size = s.iter().filter(|v| **v != Val::Nil).count() as i64;
                    (size == int(p[0])).then_some(t)
                }
                _ => unreachable!("{m}"),
            }
        })
    }

    fn set_model(spec: &ObjectSpec) -> Result<(), String> {
        // Elements 1 and 2: a state is whether each is present.
        let states = [[false, false], [false, true], [true, false], [true, true]];
        let elems = ints(1..=2);
        let mut acts = Vec::new();
        for m in ["add", "remove", "contains"] {
            acts.extend(actions(m, &[elems.clone(), booleans()]));
        }
        acts.extend(actions("size", &[ints(0..=3)]));
        violation(spec, &states, &acts, |s, m, p| {
            let mut t = *s;
            let x = || int(p[0]) as usize - 1;
            match m {
                "add" => (boolean(!s[x()]) == p[1]).then(|| {
                    t[x()] = true;
                    t
                }),
                "remove" => (boolean(s[x()]) == p[1]).then(|| {
                    t[x()] = false;
                    t
                }),
                "contains" => (boolean(s[x()]) == p[1]).then_some(t),
                "size" => {
                    let size = s.iter().filter(|b| **b).count() as i64;
                    (size == int(p[0])).then_some(t)
                }
                _ => unreachable!("{m}"),
            }
        })
    }

    fn register_model(spec: &ObjectSpec) -> Result<(), String> {
        let vals = ints(1..=3);
        let mut acts = actions("read", std::slice::from_ref(&vals));
        acts.extend(actions("write", std::slice::from_ref(&vals)));
        violation(spec, &vals, &acts, |s, m, p| match m {
            "read" => (*s == p[0]).then_some(*s),
            "write" => Some(p[0]),
            _ => unreachable!("{m}"),
        })
    }

    fn counter_model(spec: &ObjectSpec) -> Result<(), String> {
        // A window of states is enough: every action moves the state by at most 2.
        let states: Vec<i64> = (-6..=6).collect();
        let mut acts = actions("add", &[ints(-2..=2)]);
        acts.extend(actions("get", &[ints(-3..=3)]));
        violation(spec, &states, &acts, |s, m, p| match m {
            "add" => Some(s + int(p[0])),
            "get" => (*s == int(p[0])).then_some(*s),
            _ => unreachable!("{m}"),
        })
    }

    #[test]
    fn map_is_sound() {
        map_model(&spec("map")).unwrap();
    }

    #[test]
    fn set_is_sound() {
        set_model(&spec("set")).unwrap();
    }

    #[test]
    fn register_is_sound() {
        register_model(&spec("register")).unwrap();
    }

    #[test]
    fn counter_is_sound() {
        counter_model(&spec("counter")).unwrap();
    }

    /// The models can tell: every rule that is not `true` becomes unsound when weakened to
    /// `true`, and the check says so.
    #[test]
    fn weakened_rules_are_caught() {
        type Model = fn(&ObjectSpec) -> Result<(), String>;
        let models: [(&str, Model); 4] = [
            ("map", map_model),
            ("set", set_model),
            ("register", register_model),
            ("counter", counter_model),
        ];
        for (name, model) in models {
            let spec = spec(name);
            for r in spec.rules.iter().filter(|r| r.formula != Formula::True) {
                let (a, b) = (&spec.methods[r.first].name, &spec.methods[r.second].name);
                let err = model(&weakened(&spec, a, b));
                assert!(
                    err.is_err(),
                    "{name}: commute {a}, {b} : true passes the model"
                );
            }
        }
    }
}
