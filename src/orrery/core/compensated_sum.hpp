#pragma once
// Neumaier's compensated summation (Neumaier 1974, the improved Kahan-Babuska
// sum): the error of the sum is bounded by ~eps * sum|x_i| independently of
// the number of terms, instead of growing with it. The yardstick solver and
// the diagnostics sum in double through this.
namespace orrery {

class CompensatedSum {
 public:
  void add(double x) {
    const double t = sum_ + x;
    // The branch picks which operand lost low-order bits; not a hot kernel.
    if ((sum_ >= 0 ? sum_ : -sum_) >= (x >= 0 ? x : -x)) {
      compensation_ += (sum_ - t) + x;
    } else {
      compensation_ += (x - t) + sum_;
    }
    sum_ = t;
  }
  CompensatedSum& operator+=(double x) {
    add(x);
    return *this;
  }
  double value() const { return sum_ + compensation_; }

 private:
  double sum_ = 0;
  double compensation_ = 0;
};

}  // namespace orrery
