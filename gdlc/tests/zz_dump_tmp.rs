#[test]
#[ignore]
fn dump() {
    let path = std::env::var("DUMP_GAME").unwrap();
    let source = std::fs::read_to_string(&path).unwrap();
    let g = gdlc::codegen::ground_source(&source, &Default::default()).unwrap();
    let name = |l: &gdlc::ground::Lit| -> String {
        let s = match l.prop {
            gdlc::ground::Prop::Base(i) => format!("B{}:{}", i, g.base[i as usize]),
            gdlc::ground::Prop::Does(r, m) => format!("does {} {}", r, g.moves[m as usize]),
            gdlc::ground::Prop::Node(n) => format!("N{}", n),
            gdlc::ground::Prop::Check(c) => format!("C{}", c),
        };
        if l.positive {
            s
        } else {
            format!("~{}", s)
        }
    };
    for (i, n) in g.nodes.iter().enumerate() {
        let rules: Vec<String> = n.rules.iter().map(|r| r.iter().map(name).collect::<Vec<_>>().join(" & ")).collect();
        println!("N{} {} := {}", i, n.name, rules.join(" | "));
    }
    println!("cycles {:?}", g.cycles);
    println!("terminal {:?}", g.terminal);
}
