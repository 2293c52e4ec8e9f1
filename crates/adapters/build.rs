// The migrations are embedded at compile time (`embed_migrations!`): a new
// or changed migration must rebuild this crate, as diesel's docs advise.
fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
}
