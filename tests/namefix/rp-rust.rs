// rp-rust.rs — a real Rust program for report-rust.sh: generic methods, a trait impl, closures
// and std's hash map, so its hot names are the kinds a Rust user sees (legacy or v0 mangling,
// chosen at build time). Runs SECONDS (default 2) of CPU.
use std::collections::HashMap;

mod engine {
    pub struct Mixer<T> {
        pub v: Vec<T>,
    }

    impl<T: Copy + std::ops::Add<Output = T>> Mixer<T> {
        #[inline(never)]
        pub fn churn(&mut self, n: usize) -> T {
            let mut acc = self.v[0];
            for i in 0..n {
                acc = acc + self.v[i % self.v.len()];
            }
            acc
        }
    }

    pub trait Shape {
        fn weigh(&self, n: u32) -> f64;
    }

    pub struct Disc(pub f64);

    impl Shape for Disc {
        #[inline(never)]
        fn weigh(&self, n: u32) -> f64 {
            (0..n).fold(0.0, |a, i| a + (self.0 * i as f64).sqrt())
        }
    }
}

use engine::Shape;

#[inline(never)]
fn hash_work(n: u64) -> usize {
    let mut m = HashMap::new();
    for i in 0..n {
        *m.entry(i % 1000).or_insert(0u64) += i;
    }
    m.len()
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let t = std::time::Instant::now();
    let mut mx = engine::Mixer { v: vec![1u64, 2, 3] };
    let shapes: Vec<Box<dyn Shape>> = vec![Box::new(engine::Disc(2.0))];
    let (mut s, mut k, mut w) = (0u64, 0usize, 0f64);
    // Each call's size varies (xorshift), so no phase keeps step with a sampling period: two
    // profilers timed a millisecond apart would otherwise alias a fixed loop differently.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut vary = |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        n / 2 + (x % n as u64) as usize
    };
    while t.elapsed().as_secs_f64() < secs {
        s = s.wrapping_add(std::hint::black_box(&mut mx).churn(vary(200_000)));
        k += hash_work(vary(20_000) as u64);
        w += shapes.iter().map(|sh| sh.weigh(vary(100_000) as u32)).sum::<f64>();
    }
    println!("{} {} {}", s, k, w > 0.0);
}
