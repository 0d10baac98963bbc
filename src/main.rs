mod lab;
fn main() {}
