"""The risk job: historical VaR and expected shortfall per product, on the live `tickdata` table.

Per product, over its last `lookback` one-tick log returns of `tik_close`:

- `var` = minus the (1 - confidence) quantile of the returns (Spark's exact
  `percentile`, linear interpolation, as numpy's default);
- `es` = minus the mean of the returns at or below that quantile.

The job reads `tickdata` through the `cumulo` source (one snapshot for all
partitions, so every product's window is from the same moment) and upserts
`var_results(product, as_of, confidence, n_obs, var, es, computed_at)`,
primary key `product`, through the `cumulo` writer.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F  # noqa: N812 (Spark's convention)

LOOKBACK = 250
CONFIDENCE = 0.99
RESULTS = "var_results"


def compute_var(ticks: DataFrame, lookback: int = LOOKBACK,
                confidence: float = CONFIDENCE) -> DataFrame:
    """One row per product: as_of, confidence, n_obs, var, es, computed_at."""
    by_time = Window.partitionBy("product").orderBy("datetime")
    rets = (ticks.select("product", "datetime",
                         F.log(F.col("tik_close") / F.lag("tik_close").over(by_time)).alias("ret"))
            .dropna(subset=["ret"]))
    newest = Window.partitionBy("product").orderBy(F.desc("datetime"))
    recent = rets.withColumn("rn", F.row_number().over(newest)).filter(F.col("rn") <= lookback)
    q = recent.groupBy("product").agg(F.max("datetime").alias("as_of"),
                                      F.count("*").alias("n_obs"),
                                      F.percentile("ret", 1 - confidence).alias("q"))
    es = (recent.join(q.select("product", "q"), "product").filter(F.col("ret") <= F.col("q"))
          .groupBy("product").agg((-F.avg("ret")).alias("es")))
    return q.join(es, "product", "left").select(
        "product", "as_of", F.lit(confidence).alias("confidence"), "n_obs",
        (-F.col("q")).alias("var"), "es", F.current_timestamp().alias("computed_at"))


def run_risk(spark: Any, url: str, table: str = "tickdata", results: str = RESULTS,
             lookback: int = LOOKBACK, confidence: float = CONFIDENCE) -> list[Any]:
    """Reads the live table, computes VaR/ES, upserts the results; returns the result rows."""
    ticks = spark.read.format("cumulo").option("url", url).option("table", table).load()
    out = compute_var(ticks, lookback, confidence).cache()
    rows = out.collect()
    (out.write.format("cumulo").option("url", url).option("table", results)
     .option("createTable", "true").option("primaryKey", "product").option("upsert", "true")
     .mode("append").save())
    out.unpersist()
    return sorted(rows, key=lambda r: r.product)
