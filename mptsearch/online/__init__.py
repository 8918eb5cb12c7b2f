"""Online layout as a game: the nested chain, its random twin and exhaustive online games
(:mod:`.games`). The online layouter that serves traces is :mod:`mptsearch.serving.online`;
the adversary families are :mod:`mptsearch.families.online`."""
