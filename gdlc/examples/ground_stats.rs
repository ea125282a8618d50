fn main() {
    for path in std::env::args().skip(1) {
        let start = std::time::Instant::now();
        let loaded = match gdlc::cli::load_valid(std::path::Path::new(&path)) { Ok(l) => l, Err(e) => { println!("{path}\tINVALID {}", e.lines().next().unwrap_or("")); continue } };
        match gdlc::ground::instantiate::instantiate(&loaded.description, &Default::default()) {
            Ok(mut g) => {
                let raw = (g.nodes.len(), g.size());
                let t1 = start.elapsed();
                gdlc::ground::simplify::simplify(&mut g);
                println!("{path}\t{:.2}s\t{:.2}s\tbase {}\tmoves {}\traw {} / {}\tnodes {}\tsize {}\tcycles {}", t1.as_secs_f64(), start.elapsed().as_secs_f64(), g.base.len(), g.moves.len(), raw.0, raw.1, g.nodes.len(), g.size(), g.cycles.len());
            }
            Err(e) => println!("{path}\t{:.2}s\tERR {e}", start.elapsed().as_secs_f64()),
        }
    }
}
