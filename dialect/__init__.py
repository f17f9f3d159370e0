"""cumulo.dialect: SQLAlchemy dialects `cumulo://` (sync) and `cumulo+async://` for Cumulo."""

from cumulo.dialect.retry import is_retryable, run_transaction, run_transaction_async

__all__ = ["is_retryable", "run_transaction", "run_transaction_async"]
