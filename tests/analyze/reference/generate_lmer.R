# lme4 / lmerTest reference fits of the lmm analyses of small.audit on scores_small.csv.
#
# Run from the repository root after generate_reference.py:
#
#     Rscript tests/analyze/reference/generate_lmer.R
#
# Writes small.lme4.json: per analysis the lmerTest Satterthwaite coefficient table (names
# in mirac's convention), variance components, REML criterion and logLik. The optimiser is
# the polished BOBYQA of tests/stats/reference/generate_lmer.R (lme4's default stops ~1e-6
# short of the optimum).
suppressPackageStartupMessages({
  library(lme4)
  library(lmerTest)
  library(jsonlite)
  library(numDeriv)
  library(minqa)
})

dir <- "tests/analyze/reference"
polished_bobyqa <- function(par, fn, lower, upper, control = list(), ...) {
  r <- minqa::bobyqa(par, fn, lower = lower, upper = upper, control = list(rhoend = 1e-12))
  th <- r$par
  ma <- list(eps = 1e-2, d = 2e-2, r = 6)
  for (it in 1:6) {
    free <- th > 1e-4
    if (!any(free)) break
    g <- numDeriv::grad(fn, th, method.args = ma)
    H <- numDeriv::hessian(fn, th, method.args = list(eps = 1e-2, d = 2e-2, r = 4))
    step <- numeric(length(th))
    step[free] <- solve(H[free, free, drop = FALSE], g[free])
    th <- pmax(th - step, lower)
    if (max(abs(step)) < 1e-11) break
  }
  list(par = th, fval = fn(th), conv = 0, feval = r$feval, message = "polished bobyqa")
}
ctrl <- lmerControl(optimizer = "polished_bobyqa", calc.derivs = FALSE)

raw <- read.csv(file.path(dir, "scores_small.csv"), colClasses = "character", na.strings = c("", "N/A"))
strings <- c("gpt-5.4" = "gpt", "claude-sonnet-4-6" = "claude", "qwen3.6-plus" = "qwen")
raw$model <- ifelse(raw$model %in% names(strings), strings[raw$model], raw$model)
for (d in c("D1", "D2", "D3", "Q2", "Q3")) raw[[d]] <- as.numeric(raw[[d]])
cats <- c("Mental Health", "Pediatrics", "Oncology/Screening")
raw$category <- cats[(as.integer(raw$seed) - 1) %% 3 + 1]

# Levels: declared order with the reference first (treatment coding), as mirac does.
lev <- function(x, levels) factor(x, levels = levels)
base <- raw[raw$arm == "baseline", ]
base$language <- lev(base$language, c("en", "zh"))
base$hls <- lev(base$hls, c("high", "low"))
base$register <- lev(base$register, c("formal", "colloquial"))
base$skeleton <- lev(base$skeleton, c("S1", "S2"))
base$condition <- lev(base$condition, c("B", "A", "C"))
base$model <- lev(base$model, c("gpt", "claude", "qwen"))
base$category <- factor(base$category, levels = sort(unique(base$category), method = "radix"))
base$seed <- factor(base$seed)

rename <- function(col) {
  map <- c("(Intercept)" = "(Intercept)", "languagezh" = "language=zh", "hlslow" = "hls=low",
           "registercolloquial" = "register=colloquial", "modelclaude" = "model=claude", "modelqwen" = "model=qwen",
           "conditionA" = "condition=A", "conditionC" = "condition=C", "categoryOncology/Screening" =
           "category=Oncology/Screening", "categoryPediatrics" = "category=Pediatrics",
           "languagezh:hlslow" = "language=zh:hls=low", "en_low" = "language=en:hls=low", "skeletonS2" = "skeleton=S2")
  unname(map[col])
}

fit_one <- function(formula, data) {
  fit <- lmerTest::lmer(as.formula(formula), data = data, REML = TRUE, control = ctrl)
  tab <- coef(summary(fit, ddf = "Satterthwaite"))
  vc <- as.data.frame(VarCorr(fit))
  list(call = paste0("lmerTest::lmer(", formula, ", REML = TRUE)"),
       names = rename(rownames(tab)), estimate = unname(tab[, "Estimate"]), se = unname(tab[, "Std. Error"]),
       df = unname(tab[, "df"]), t = unname(tab[, "t value"]), p = unname(tab[, "Pr(>|t|)"]),
       p_normal = unname(2 * pnorm(-abs(tab[, "t value"]))),
       group_variance = vc$vcov[vc$grp == "seed"], residual_variance = sigma(fit)^2,
       reml_criterion = unname(REMLcrit(fit)), logLik = as.numeric(logLik(fit)), nobs = nobs(fit),
       n_groups = nlevels(droplevels(data$seed[!is.na(data[[all.vars(as.formula(formula))[1]]])])),
       is_singular = isSingular(fit))
}

# rq1_inter: `language:hls` alone is the product of the treatment dummies (one column), which
# R would code differently for an interaction without its main effects, so it is built here.
claude <- base[base$model == "claude", ]
# No `reference` is named, so each factor's reference is its first declared level (zh, high).
claude$en_low <- as.numeric(claude$language == "en" & claude$hls == "low")
out <- list(
  versions = list(R = R.version.string, lme4 = as.character(packageVersion("lme4")),
                  lmerTest = as.character(packageVersion("lmerTest"))),
  command = "Rscript tests/analyze/reference/generate_lmer.R",
  rq1 = fit_one("D3 ~ language * hls + register + model + condition + category + (1 | seed)", base),
  rq1_inter = fit_one("Q3 ~ en_low + skeleton + (1 | seed)", claude))
write_json(out, file.path(dir, "small.lme4.json"), digits = NA, auto_unbox = TRUE, pretty = TRUE)
cat("wrote small.lme4.json\n")
