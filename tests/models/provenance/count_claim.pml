/* Provenance (topspin-py patch): a never claim in a file of its own, given to spin with
   -N, for define_bug.pml: it is violated when count reaches 2, which the two processes reach
   together whatever their order, so the claim keeps the swap of P:0 and P:1 (order 2).
   expect: patch finds this file again from pan.c's tables (or takes --spin "-N FILE") and
   checks it against pan.c; edited after spin -a, it is refused as giving other claims. */
never {
	do
	:: count == 2 -> break
	:: else
	od
}
