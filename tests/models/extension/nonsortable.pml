/* [DG01], section 4.1: three processes of one proctype, each with a ref to another and a
 * public byte, so that a process's tuple is (r, v, _state).  tests/codegen/test_pseudosort_c.py writes
 * the section's non-sortable state into a captured state of this model and pseudo-sorts it
 * with the generated C.  The body reads another process's v through r, so that r is a
 * reference to the symmetry analysis too (a ref the model never follows would be plain data
 * to it, compared and moved but never renamed).
 * Counts: plain spin 6.5.2 on the desugared program (topspin-py desugar), spin -o1 -a as verify
 * runs it, pan -DNOREDUCE.  order: the three instances of A, the proctype its refs refer to: S3.
   pids: A A A
   expect: flags=-DNOREDUCE states=1690 transitions=12514 matched=10824 errors=0 order=6 */
active [3] proctype A()
{
    ref A r;
    public byte v;
end:
    do
    :: r = anyRef(A)
    :: r != _undef_ref && A[r].v == 0 -> v = 1
    od
}
