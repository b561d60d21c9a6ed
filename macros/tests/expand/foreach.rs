/// Amounts.
pub Audit = "foreach-audit" {
    let amounts = stream("amounts", Utf8, I64);
    amounts.foreach(|key, amount| println!("{key} {amount}"));
    amounts.filter(|_key, amount| *amount >= 10).to("big-amounts", Utf8, I64);
}
