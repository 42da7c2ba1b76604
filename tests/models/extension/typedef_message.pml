/* Clients send a request to any server as a typedef, which carries the ref of the client that
 * asks (Derepas and Gastin's rules allow a ref field in a typedef); the server answers the client the
 * request names.  Nothing tells one client from another, or one server from another: the
 * declaration holds for the model.  But the canonicaliser renames pids in plain message fields
 * only, not inside a typedef a message carries, so it could not apply a permutation of the
 * clients (whose refs the requests hold), nor of the servers (whose mailboxes hold the
 * requests): the declared group is left out, with a note that says it is a limit of
 * topspin-py's, not an asymmetry of the model, and verify runs without reduction.
 * Counts: plain spin 6.5.2 on the desugared program, spin -o1 as verify runs it.
 * order: 1 (the limit above).
   pids: client client server server
   expect: flags=-DNOREDUCE states=711 transitions=1585 matched=874 errors=0 order=1 */
typedef Req { ref client who; byte kind };

active [2] proctype client() {
    ref server s;
    public chan answers = [1] of {byte};
    Req r;
end: do
    :: s = anyRef(server); r.who = _lid; r.kind = 1; server[s].inbox!r; answers?_; s = _undef_ref
    od
}

active [2] proctype server() {
    public chan inbox = [2] of {Req};
    Req got;
end: do
    :: inbox?got -> client[got.who].answers!got.kind
    od
}
