"""One module per verb. Each returns a result value; none prints and none imports typer."""
