/* The never claim of claim_file.pml, kept in a file of its own for spin's -N FILE (it is not
   a model: tests/models/claims/ holds claim files only).  Violated (its end is reached) as
   soon as User:1, pid 1, is in its critical section. */
never {
	do
	:: in_cs[1] == 1 -> break
	:: else
	od
}
