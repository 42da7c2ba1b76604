"""Which claim a search checks (``pan.flags.claim_in_force``, ``Model.claim_in_force``): none,
pan's default (the first claim pan numbers: see ``Model.keeping_claim``), every one (when it
cannot be told which), or an ltl formula by its name.

A module of its own so that pan's flags can name them without importing the parser.
"""

NO_CLAIM, FIRST_CLAIM, ANY_CLAIM = "no claim", "first claim", "any claim"
