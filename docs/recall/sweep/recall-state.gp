# recall-state.svg and recall-state.png, written by attnzoo; rerun with `gnuplot recall-state.gp` in this folder.
$s0 << EOD
131584 98.9583 0.589005
263168 99.7521 0.0381881
526336 99.7979 0.0260208
EOD
$s1 << EOD
131584 98.9646 0.499622
263168 99.7271 0.0538855
526336 99.7896 0.0626041
EOD
$s2 << EOD
197120 4.88542 0.0252591
394240 6.61042 0.412752
788480 7.1375 0.303173
EOD
$s3 << EOD
4864 4.34167 0.0745647
9728 25.7646 33.7519
35840 96.1625 1.1744
EOD
$s4 << EOD
3584 6.36875 0
5632 6.7625 0
9728 64.7375 0
17920 75.5375 0
34304 75.4313 0
EOD
$s5 << EOD
33792 63.5833 2.90564
67584 69.9333 0.731713
135168 74.3104 0.613021
EOD
$s6 << EOD
10240 0.408333 0.0219493
18432 1.59375 0.283119
34816 5.51042 2.02431
67584 69.9646 1.13799
133120 93.675 0.67555
EOD
$s7 << EOD
66560 3.99792 0.0691278
133120 7.675 1.8767
266240 6.77083 0.216175
EOD
$s8 << EOD
131584 5.55417 0.140637
263168 7.06042 0.0866777
526336 7.02917 0.035539
EOD
$s9 << EOD
12480 51.5437 5.55052
24960 52.2083 38.5907
118208 28.1354 35.9227
EOD
$s10 << EOD
5376 30.9521 18.3255
9728 36.5187 29.4942
18432 58.5646 24.9115
35840 68.5833 21.1977
70656 91.3312 0
EOD
$s11 << EOD
35328 8.64792 8.02521
70656 70.6063 34.5945
137216 99.6063 0.0962175
EOD
$s12 << EOD
9728 6.05625 0.132288
18432 6.19583 0.0668292
35840 79.8021 7.13266
70656 70.5854 34.6983
140288 76.475 0
EOD
$s13 << EOD
131584 1.54167 0.128746
263168 1.89792 0.110456
526336 1.87292 0.431989
EOD
$s14 << EOD
34816 0.420833 0.101229
67584 0.945833 0.137689
133120 1.85625 0.0845484
EOD
$s15 << EOD
66048 4.15833 0.248773
132096 6.23958 0.109211
264192 7.05 0.139614
EOD
$front << EOD
3584 6.36875
5376 30.9521
9728 64.7375
17920 75.5375
35840 96.1625
131584 98.9646
137216 99.6063
263168 99.7521
526336 99.7979
EOD

set terminal svg size 1150,600 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'recall-state.svg'
set title 'MQAR at T 256, 16 pairs: accuracy against the state kept while decoding'
set logscale x 2
set format x '%g'
set yrange [0:105]
set xlabel 'decoding state (KiB, measured)'
set ylabel 'test accuracy (%)'
set key outside right
plot $s0 using ($1/1024):2:3 with yerrorlines lc rgb '#1f77b4' dt 2 pt 6 title "flash: dims", $s1 using ($1/1024):2:3 with yerrorlines lc rgb '#ff7f0e' dt 2 pt 6 title "full: dims", $s2 using ($1/1024):2:3 with yerrorlines lc rgb '#2ca02c' dt 2 pt 6 title "gmlp: dims", $s3 using ($1/1024):2:3 with yerrorlines lc rgb '#d62728' dt 2 pt 6 title "linear: dims", $s4 using ($1/1024):2:3 with yerrorlines lc rgb '#d62728' dt 1 pt 7 title "linear: heads, dim 64", $s5 using ($1/1024):2:3 with yerrorlines lc rgb '#9467bd' dt 2 pt 6 title "local: dims", $s6 using ($1/1024):2:3 with yerrorlines lc rgb '#9467bd' dt 1 pt 7 title "local: window, dim 64", $s7 using ($1/1024):2:3 with yerrorlines lc rgb '#8c564b' dt 2 pt 6 title "longformer: dims", $s8 using ($1/1024):2:3 with yerrorlines lc rgb '#e377c2' dt 2 pt 6 title "mixer: dims", $s9 using ($1/1024):2:3 with yerrorlines lc rgb '#bcbd22' dt 2 pt 6 title "performer: dims", $s10 using ($1/1024):2:3 with yerrorlines lc rgb '#bcbd22' dt 1 pt 7 title "performer: features, dim 64", $s11 using ($1/1024):2:3 with yerrorlines lc rgb '#17becf' dt 2 pt 6 title "rfa: dims", $s12 using ($1/1024):2:3 with yerrorlines lc rgb '#17becf' dt 1 pt 7 title "rfa: features, dim 64", $s13 using ($1/1024):2:3 with yerrorlines lc rgb '#000000' dt 2 pt 6 title "strided: dims", $s14 using ($1/1024):2:3 with yerrorlines lc rgb '#000000' dt 1 pt 7 title "strided: window, dim 64", $s15 using ($1/1024):2:3 with yerrorlines lc rgb '#393b79' dt 2 pt 6 title "synthesizer: dims", $front using ($1/1024):2 with steps lw 3 lc rgb '#80000000' title 'frontier'

unset output
set terminal pngcairo size 1150,600 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'recall-state.png'
set title 'MQAR at T 256, 16 pairs: accuracy against the state kept while decoding'
set logscale x 2
set format x '%g'
set yrange [0:105]
set xlabel 'decoding state (KiB, measured)'
set ylabel 'test accuracy (%)'
set key outside right
plot $s0 using ($1/1024):2:3 with yerrorlines lc rgb '#1f77b4' dt 2 pt 6 title "flash: dims", $s1 using ($1/1024):2:3 with yerrorlines lc rgb '#ff7f0e' dt 2 pt 6 title "full: dims", $s2 using ($1/1024):2:3 with yerrorlines lc rgb '#2ca02c' dt 2 pt 6 title "gmlp: dims", $s3 using ($1/1024):2:3 with yerrorlines lc rgb '#d62728' dt 2 pt 6 title "linear: dims", $s4 using ($1/1024):2:3 with yerrorlines lc rgb '#d62728' dt 1 pt 7 title "linear: heads, dim 64", $s5 using ($1/1024):2:3 with yerrorlines lc rgb '#9467bd' dt 2 pt 6 title "local: dims", $s6 using ($1/1024):2:3 with yerrorlines lc rgb '#9467bd' dt 1 pt 7 title "local: window, dim 64", $s7 using ($1/1024):2:3 with yerrorlines lc rgb '#8c564b' dt 2 pt 6 title "longformer: dims", $s8 using ($1/1024):2:3 with yerrorlines lc rgb '#e377c2' dt 2 pt 6 title "mixer: dims", $s9 using ($1/1024):2:3 with yerrorlines lc rgb '#bcbd22' dt 2 pt 6 title "performer: dims", $s10 using ($1/1024):2:3 with yerrorlines lc rgb '#bcbd22' dt 1 pt 7 title "performer: features, dim 64", $s11 using ($1/1024):2:3 with yerrorlines lc rgb '#17becf' dt 2 pt 6 title "rfa: dims", $s12 using ($1/1024):2:3 with yerrorlines lc rgb '#17becf' dt 1 pt 7 title "rfa: features, dim 64", $s13 using ($1/1024):2:3 with yerrorlines lc rgb '#000000' dt 2 pt 6 title "strided: dims", $s14 using ($1/1024):2:3 with yerrorlines lc rgb '#000000' dt 1 pt 7 title "strided: window, dim 64", $s15 using ($1/1024):2:3 with yerrorlines lc rgb '#393b79' dt 2 pt 6 title "synthesizer: dims", $front using ($1/1024):2 with steps lw 3 lc rgb '#80000000' title 'frontier'

unset output
