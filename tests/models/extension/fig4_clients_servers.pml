/* [DG01], section 4.2, Fig. 4: three clients and three servers, each with a ref to one of
 * the other kind and a public byte, so that a tuple is (r, v, _state) on both sides.
 * tests/codegen/test_pseudosort_c.py writes the Fig. 4 configuration into a captured state of this
 * model and pseudo-sorts it with the generated C.  Each process reads the v of the process its
 * r names, so that r is a reference to the symmetry analysis too (one the model never follows
 * would be plain data to it); v starts 0 and is never changed (`v == 1` never holds), which
 * keeps the state space small (4^6 states).
 * Counts: plain spin 6.5.2 on the desugared program (topspin-py desugar), spin -o1 -a as verify
 * runs it, pan -DNOREDUCE.  order: refs refer to both proctypes, each with three instances:
 * S3 x S3.
   pids: Client Client Client Server Server Server
   expect: flags=-DNOREDUCE states=4096 transitions=73729 matched=69633 errors=0 order=36 */
active [3] proctype Client()
{
    ref Server r;
    public byte v;
end:
    do
    :: r = anyRef(Server)
    :: r != _undef_ref && Server[r].v == 1 -> v = 0
    od
}

active [3] proctype Server()
{
    ref Client r;
    public byte v;
end:
    do
    :: r = anyRef(Client)
    :: r != _undef_ref && Client[r].v == 1 -> v = 0
    od
}
