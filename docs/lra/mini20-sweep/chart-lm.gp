# chart-lm.svg and chart-lm.png, written by attnzoo; rerun with `gnuplot chart-lm.gp` in this folder.
$f0 << EOD
"full" 0.4564 2.66277 7 0.0265978
"flash" 1.2127 2.66277 1.61669 0.0265978
EOD
$f1 << EOD
"gmlp" 0.5856 2.57617 3.29274 0.0191014
"mixer" 14.4824 2.87067 1.47728 0.00679289
EOD
$f2 << EOD
"linear" 8.9409 2.95807 1.60447 0.0133433
"performer" 8.6862 3.00047 1.82677 0.0576361
"rfa" 3.8859 3.08557 2.14671 0.0338243
"synthesizer" 0.7532 2.75397 1.68319 0.00766312
EOD
$f3 << EOD
"local" 6.4343 2.6602 1.76569 0.0177034
"longformer" 5.9459 2.64873 1.77338 0.0223232
"strided" 9.4747 3.83137 1.68543 0.00105987
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-lm.svg'
set title "LM on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "LM: test bits per byte (lower is better: the axis runs downwards)"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.253556:26.0683]
set yrange [5.34355:2.25851]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4564,2.66277 center offset char 0,2.16 front
set label 2 "flash" at 1.2127,2.66277 center offset char 0,1.01156 front
set label 3 "gmlp" at 0.5856,2.57617 center offset char 0,1.36912 front
set label 4 "linear" at 8.9409,2.95807 center offset char 0,1.00895 front
set label 5 "local" at 6.4343,2.6602 center offset char 0,1.04335 front
set label 6 "longformer" at 5.9459,2.64873 center offset char 0,-1.04499 front
set label 7 "mixer" at 14.4824,2.87067 center offset char 0,0.981819 front
set label 8 "performer" at 8.6862,3.00047 center offset char 0,-1.05638 front
set label 9 "rfa" at 3.8859,3.08557 center offset char 0,1.12463 front
set label 10 "strided" at 9.4747,3.83137 center offset char 0,1.02623 front
set label 11 "synthesizer" at 0.7532,2.75397 center offset char 0,-1.02575 front
set arrow from graph 0, first 5.045 to graph 1, first 5.045 nohead dt 2 lc rgb '#888888'
set label 12 "baseline: unigram" at graph 0.01, first 5.045 offset 0,0.6 left textcolor rgb '#888888'
set arrow from graph 0, first 2.676 to graph 1, first 2.676 nohead dt 2 lc rgb '#888888'
set label 13 "baseline: 5-gram" at graph 0.01, first 2.676 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle

unset output
set terminal pngcairo size 1100,650 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'chart-lm.png'
set title "LM on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "LM: test bits per byte (lower is better: the axis runs downwards)"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.253556:26.0683]
set yrange [5.34355:2.25851]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4564,2.66277 center offset char 0,2.16 front
set label 2 "flash" at 1.2127,2.66277 center offset char 0,1.01156 front
set label 3 "gmlp" at 0.5856,2.57617 center offset char 0,1.36912 front
set label 4 "linear" at 8.9409,2.95807 center offset char 0,1.00895 front
set label 5 "local" at 6.4343,2.6602 center offset char 0,1.04335 front
set label 6 "longformer" at 5.9459,2.64873 center offset char 0,-1.04499 front
set label 7 "mixer" at 14.4824,2.87067 center offset char 0,0.981819 front
set label 8 "performer" at 8.6862,3.00047 center offset char 0,-1.05638 front
set label 9 "rfa" at 3.8859,3.08557 center offset char 0,1.12463 front
set label 10 "strided" at 9.4747,3.83137 center offset char 0,1.02623 front
set label 11 "synthesizer" at 0.7532,2.75397 center offset char 0,-1.02575 front
set arrow from graph 0, first 5.045 to graph 1, first 5.045 nohead dt 2 lc rgb '#888888'
set label 12 "baseline: unigram" at graph 0.01, first 5.045 offset 0,0.6 left textcolor rgb '#888888'
set arrow from graph 0, first 2.676 to graph 1, first 2.676 nohead dt 2 lc rgb '#888888'
set label 13 "baseline: 5-gram" at graph 0.01, first 2.676 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle

unset output
