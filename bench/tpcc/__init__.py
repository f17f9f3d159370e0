"""TPC-C written from the specification: data generation, the five transactions, and a driver."""
