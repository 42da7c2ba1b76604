/* Seed 003, section 4.1: three processes of one proctype, each with a ref to another and a
 * public byte, so that a process's tuple is (r, v, _state).  tests/test_pseudosort_c.py writes
 * the section's non-sortable state into a captured state of this model and pseudo-sorts it
 * with the generated C.  The body reads another process's v through r, so that r is a
 * reference to the symmetry analysis too (a ref the model never follows would be plain data
 * to it, compared and moved but never renamed). */
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
