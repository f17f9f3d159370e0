"""The batch executor: one generator of row batches per plan node."""
